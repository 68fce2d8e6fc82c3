// The RuntimeRollout API: one object per move of the runtime from one plan to another.
// Cluster-scoped, so it never clashes with other projects' namespaced "rollouts". Names, UIDs
// and plans follow the same rules, with the same messages, as on the ClusterRuntime. The
// control plane writes everything but the requests a person makes: spec.approval,
// spec.acknowledgements, spec.revocation and spec.retry, which the chart's admission policy
// holds to the requester's own identity.
import * as z from 'zod';
import { ConditionSchema } from './condition.ts';
import { apiObject, boundedString, described, patternString } from './fields.ts';
import { COMPONENT_NAME, PLAN_NAME, uidRule } from './names.ts';

/** Most steps one rollout can hold: every release of a recipe, with room to spare. */
export const MAX_ROLLOUT_STEPS = 256;
/** Most changed Helm value paths a step lists; the rest are counted in the summary. */
export const MAX_VALUE_PATHS = 16;

export const VERDICTS = ['safe', 'manual', 'blocked', 'unknown'] as const;
export type Verdict = (typeof VERDICTS)[number];
export const OUTCOMES = ['Succeeded', 'Failed', 'Expired', 'Revoked', 'Superseded', 'Orphaned'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const STEP_STATES = ['Pending', 'InProgress', 'AwaitingAcknowledgement', 'Succeeded', 'Failed'] as const;
/** Most acknowledgements a rollout holds: one per manual release. */
export const MAX_ACKNOWLEDGEMENTS = MAX_ROLLOUT_STEPS;

const time = (description: string): z.ZodString => boundedString(64, `${description} (RFC 3339, UTC).`);

export const RolloutStepSchema = apiObject(
  z.object({
    release: patternString(COMPONENT_NAME, 'The release (one component of the plan) this step acts on.'),
    action: described(z.enum(['Install', 'Upgrade', 'Remove', 'Adopt']), 'What the step does to the release.'),
    verdict: described(
      z.enum(VERDICTS),
      'How the move of this release was assessed: safe, manual, blocked or unknown.',
    ).optional(),
    why: boundedString(1024, 'Why the release got its verdict.').optional(),
    fromVersion: boundedString(128, 'The chart version the release runs now; absent for an install.').optional(),
    toVersion: boundedString(128, 'The chart version the step moves it to; absent for a removal.').optional(),
    valuesChanged: described(
      z.array(boundedString(256, 'A dotted path of a Helm value that changes.')).max(MAX_VALUE_PATHS),
      'Helm value paths that change, at most 16.',
    ).optional(),
    valuesChangedCount: described(z.int().min(0), 'How many Helm value paths change in all.').optional(),
  }),
).meta({ description: 'One release and what to do with it.' });
export type RolloutStep = z.output<typeof RolloutStepSchema>;

export const ApprovalSchema = apiObject(
  z.object({
    approvedBy: boundedString(
      512,
      'Who approved, exactly as the API server names the requesting user (kubectl auth whoami).',
    ),
    approvedAt: time('When they approved'),
  }),
).meta({ description: 'The approval of the rollout; only its approver writes it, as themselves.' });

export const AcknowledgementSchema = apiObject(
  z.object({
    release: patternString(COMPONENT_NAME, 'The manual release whose recorded steps were done.'),
    acknowledgedBy: boundedString(512, 'Who acknowledged, exactly as the API server names the requesting user.'),
    acknowledgedAt: time('When they acknowledged'),
  }),
).meta({
  description: "A person's word that a manual release's recorded steps are done; only they write it, as themselves.",
});
export type Acknowledgement = z.output<typeof AcknowledgementSchema>;

export const RevocationSchema = apiObject(
  z.object({
    revokedBy: boundedString(512, 'Who revoked, exactly as the API server names the requesting user.'),
    revokedAt: time('When they revoked'),
    reason: boundedString(1024, 'Why, in their words.').optional(),
  }),
).meta({
  description:
    'A request to stop the rollout where it is (kubectl aicr revoke); set once, by the requester as themselves, ' +
    'while the rollout has not ended.',
});

/** Most owned Applications a rollout records as its approved inventory. */
export const MAX_INVENTORY = 512;

export const InventoryEntrySchema = z
  .object({
    name: boundedString(253, 'The Application.'),
    uid: boundedString(64, 'Its UID: another UID under the same name means it was deleted and created again.'),
    plan: boundedString(128, 'The plan digest its annotation named.'),
    release: boundedString(
      128,
      'Digest of the release it carried: its source, Helm values, destination and release annotations.',
    ),
    project: boundedString(
      253,
      'The Argo CD project it belonged to; absent in rollouts recorded before projects were compared, ' +
        'which then leave it out.',
    ).optional(),
  })
  .meta({ description: 'One owned Application as it stood when the rollout was created.' });
export type InventoryEntry = z.output<typeof InventoryEntrySchema>;

export const RetrySchema = apiObject(
  z.object({
    requestedBy: boundedString(512, 'Who asked for the retry, exactly as the API server names the requesting user.'),
    requestedAt: time('When they asked'),
  }),
).meta({
  description:
    'A request for a new rollout to the same target from the current state (kubectl aicr retry); set once, ' +
    'by the requester as themselves.',
});

export const DisruptionSchema = apiObject(
  z.object({
    approvedBy: boundedString(
      512,
      'Who let the rollout disrupt running GPU work, exactly as the API server names the requesting user.',
    ),
    approvedAt: time('When they did'),
  }),
).meta({
  description:
    'A go-ahead for steps of releases that disrupt GPU Nodes while protected work still runs there ' +
    '(kubectl aicr approve --disrupt); set once, by an approver as themselves, while the rollout has not ended.',
});

export const RuntimeRolloutSpecSchema = apiObject(
  z.object({
    runtimeUID: patternString(
      uidRule('the ClusterRuntime this rollout belongs to'),
      'UID of the ClusterRuntime this rollout belongs to.',
    ),
    type: described(
      z.enum(['Upgrade', 'Adopt', 'Remove']),
      'Upgrade moves to a new plan, Adopt takes over orphaned releases, Remove deletes every release.',
    ),
    fromPlan: patternString(
      PLAN_NAME,
      'The plan the cluster runs before the rollout; absent for a first install.',
    ).optional(),
    toPlan: patternString(PLAN_NAME, 'The plan the cluster runs once the rollout is done.'),
    steps: described(z.array(RolloutStepSchema).max(MAX_ROLLOUT_STEPS), 'The releases to change, in order.').prefault(
      [],
    ),
    inventory: boundedString(
      128,
      'Digest of the owned Applications as they stood when the rollout was created; a change since refuses approval.',
    ).optional(),
    applications: described(
      z.array(InventoryEntrySchema).max(MAX_INVENTORY),
      'The owned Applications as they stood when the rollout was created, which its approval is given against; ' +
        'a change to them while it runs stalls it with InventoryDrift.',
    ).optional(),
    deadline: time('When an unapproved rollout expires').optional(),
    approval: ApprovalSchema.optional(),
    acknowledgements: described(
      z.array(AcknowledgementSchema).max(MAX_ACKNOWLEDGEMENTS),
      'Manual releases whose recorded steps a person has done (kubectl aicr acknowledge); entries are only ever added.',
    )
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['release'] })
      .optional(),
    revocation: RevocationSchema.optional(),
    retry: RetrySchema.optional(),
    disruption: DisruptionSchema.optional(),
  }),
).meta({ description: 'One move of the runtime from one plan to another.' });
export type RuntimeRolloutSpec = z.output<typeof RuntimeRolloutSpecSchema>;

const ApprovalVerdictSchema = z
  .object({
    state: described(z.enum(['Accepted', 'Refused']), 'Whether the control plane accepted the approval.'),
    approvedBy: boundedString(512, 'The approver the verdict is about.'),
    approvedAt: time('The approval time the verdict is about'),
    reason: boundedString(64, 'Why, in one CamelCase word.'),
    message: boundedString(4096, 'Why, for a person.'),
  })
  .meta({ description: "The control plane's answer to the latest approval." });

const StepStateSchema = z
  .object({
    release: boundedString(63, 'The release of the step.'),
    state: described(z.enum(STEP_STATES), 'Where the step is.'),
    reason: boundedString(
      64,
      'Why the step is where it is, in one CamelCase word (for example SpecDrifted, GateNotMet).',
    ).optional(),
    message: boundedString(1024, 'What the step is waiting for or why it ended, for a person.').optional(),
    startedAt: time('When the control plane wrote the step to Argo CD').optional(),
    finishedAt: time('When the step ended').optional(),
    timeoutFrom: time(
      "When a sync window of Argo CD's AppProject stopped holding the step's sync; actionTimeout counts from " +
        'then instead of startedAt',
    ).optional(),
    waitingSince: time(
      'When the step began waiting for protected GPU work to end (WorkloadsStillRunning once ' +
        'spec.workloads.maxWait has passed)',
    ).optional(),
    applicationUID: boundedString(
      64,
      'UID of the Application the step wrote; another UID later means it was deleted and created again.',
    ).optional(),
  })
  .meta({ description: 'Where one step is.' });

export const VALIDATION_STATES = ['Disabled', 'Running', 'Passed', 'Failed'] as const;

const ValidationStatusSchema = z
  .object({
    state: described(z.enum(VALIDATION_STATES), 'Disabled (spec.validation.deployment), Running, Passed or Failed.'),
    job: boundedString(253, 'The aicr validate Job in aicr-validation.').optional(),
    runID: boundedString(128, "AICR's run ID, as its validator Jobs are labelled (aicr.nvidia.com/run-id).").optional(),
    report: boundedString(253, 'The ConfigMap in aicr-validation holding the CTRF report.').optional(),
    evidence: boundedString(
      512,
      'The OCI reference of the pushed evidence; empty while AICR cannot push it (v0.11.1).',
    ).optional(),
    checks: described(
      z
        .array(
          z.object({
            name: boundedString(128, 'The check.'),
            status: boundedString(32, 'passed, failed, skipped or other.'),
          }),
        )
        .max(64),
      'Each deployment check and how it ended.',
    ).optional(),
    message: boundedString(4096, 'How validation went, for a person.').optional(),
  })
  .meta({ description: 'The deployment validation that ends the rollout.' });
export type ValidationStatus = z.output<typeof ValidationStatusSchema>;

export const RuntimeRolloutStatusSchema = z
  .object({
    observedGeneration: described(z.int().min(0), 'The spec generation this status describes.').optional(),
    conditions: described(z.array(ConditionSchema).max(32), 'Ready and the rollout conditions, one per type.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
      .optional(),
    currentStep: described(z.int().min(0).max(MAX_ROLLOUT_STEPS), 'Index of the step in progress.').optional(),
    outcome: described(z.enum(OUTCOMES), 'How the rollout ended; absent while it runs or waits.').optional(),
    approval: ApprovalVerdictSchema.optional(),
    steps: described(
      z.array(StepStateSchema).max(MAX_ROLLOUT_STEPS),
      'Each step and where it is, in order.',
    ).optional(),
    validation: ValidationStatusSchema.optional(),
  })
  .meta({ description: 'Progress of the rollout; written only by the control plane.' });
export type RuntimeRolloutStatus = z.output<typeof RuntimeRolloutStatusSchema>;

export const RuntimeRolloutSchema = z.object({ spec: RuntimeRolloutSpecSchema });

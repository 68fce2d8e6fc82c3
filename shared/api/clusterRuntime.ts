// The ClusterRuntime API: the zod schema is the single source for validation in the control
// plane and for the CRD's OpenAPI schema (see crd.ts); every check that OpenAPI cannot state
// travels as a CEL rule with the same message (cel.ts, fields.ts), so both refuse alike.
import * as z from 'zod';
import { type CelCheck, withCel } from './cel.ts';
import { RUNTIME_NAME } from './constants.ts';
import { ConditionSchema } from './condition.ts';
import { apiObject, boundedString, described, durationString, keyedMap, patternString } from './fields.ts';
import { AICR_VERSION, COMPONENT_NAME, MAX_COMPONENTS, PLAN_NAME, uidRule } from './names.ts';
import { MaintenanceSchema } from './maintenance.ts';
import { WorkloadsSchema } from './workloads.ts';

export const CriteriaSchema = apiObject(
  z.object({
    service: described(
      z.enum(['eks', 'gke', 'aks', 'oke', 'ocp', 'kind', 'lke', 'bcm', 'metal3', 'rke2', 'generic', 'k0s']),
      'Kubernetes service or distribution the cluster runs on.',
    ).optional(),
    accelerator: described(
      z.enum(['h100', 'h200', 'gb200', 'gb300', 'b200', 'a100', 'l40', 'l40s', 'rtx-pro-6000', 'vr200']),
      'GPU model of the worker nodes.',
    ).optional(),
    intent: described(z.enum(['training', 'inference']), 'What the cluster is for.').optional(),
    os: described(
      z.enum(['ubuntu', 'rhel', 'cos', 'amazonlinux', 'ol', 'talos']),
      'Operating system of the GPU nodes.',
    ).optional(),
    platform: described(
      z.enum(['dynamo', 'kubeflow', 'nim', 'runai', 'slurm']),
      'Workload platform to install on top of the GPU stack.',
    ).optional(),
  }),
).meta({
  description: 'What the AICR recipe is chosen for. A criterion left out is filled from discovery of the cluster.',
});

export const ComponentOverrideSchema = apiObject(
  z.object({
    enabled: described(z.boolean(), 'Whether the component is installed; false removes it from the plan.').optional(),
    version: boundedString(128, "Chart version to use instead of the recipe's.")
      .min(1, { error: 'must not be empty' })
      .optional(),
    /** Helm values merged over the recipe's; free-form, so stored as given. */
    values: described(z.looseObject({}), "Helm values merged over the recipe's values for this component.").optional(),
  }),
).meta({ description: 'Changes to one component of the recipe.' });

const pinnedNeedsPlan: CelCheck<{ mode: string; plan?: string | undefined }> = {
  rule: "self.mode != 'Pinned' || has(self.plan)",
  message: 'mode Pinned needs the name of a plan (aicr-plan-...)',
  fieldPath: '.plan',
  reason: 'FieldValueRequired',
  holds: (s) => s.mode !== 'Pinned' || s.plan !== undefined,
};
const automaticForbidsPlan: CelCheck<{ mode: string; plan?: string | undefined }> = {
  rule: "self.mode != 'Automatic' || !has(self.plan)",
  message: 'a plan can be named only with mode Pinned; remove plan or set mode: Pinned',
  fieldPath: '.plan',
  reason: 'FieldValueForbidden',
  holds: (s) => s.mode !== 'Automatic' || s.plan === undefined,
};

export const SelectionSchema = apiObject(
  withCel(
    z.object({
      mode: described(
        z.enum(['Automatic', 'Pinned']),
        'Automatic follows the newest approved plan; Pinned stays on the named plan.',
      ).default('Automatic'),
      plan: patternString(PLAN_NAME, 'The plan to stay on; only with mode Pinned.').optional(),
    }),
    pinnedNeedsPlan,
    automaticForbidsPlan,
  ),
).meta({ description: 'How the plan the cluster should run is chosen.' });

const ValidationSchema = apiObject(
  z.object({
    deployment: described(
      z.enum(['Required', 'Disabled']),
      'Required runs the deployment validation after each rollout; Disabled skips it.',
    ).default('Required'),
  }),
).meta({ description: 'Checks run against the cluster after a rollout.' });

const AdoptionSchema = apiObject(
  z.object({
    runtimeUID: patternString(
      uidRule('the earlier ClusterRuntime'),
      'UID of the earlier ClusterRuntime whose releases this one takes over.',
    ),
  }),
).meta({
  description: 'Takes over the releases of an earlier ClusterRuntime that was deleted with deletionPolicy Orphan.',
});

const SPEC_OBJECT = z.object({
  aicrVersion: patternString(
    AICR_VERSION,
    'AICR release whose recipes and CLI the control plane uses, such as v1.1.0.',
  ),
  criteria: CriteriaSchema.prefault({}),
  components: keyedMap(
    ComponentOverrideSchema,
    { key: COMPONENT_NAME, maxProperties: MAX_COMPONENTS },
    `Overrides per component, keyed by component name; at most ${MAX_COMPONENTS}.`,
  ).optional(),
  selection: SelectionSchema.prefault({ mode: 'Automatic' }),
  validation: ValidationSchema.prefault({ deployment: 'Required' }),
  paused: described(
    z.boolean(),
    'While true, no rollout starts or moves on; the control plane still observes and reports.',
  ).default(false),
  suspendEngine: described(
    z.boolean(),
    'While true, the GitOps engine stops applying releases to the cluster.',
  ).default(false),
  deletionPolicy: described(
    z.enum(['Orphan', 'Delete']),
    'What happens to installed releases when the runtime is deleted: Orphan keeps them, Delete removes them.',
  ).default('Orphan'),
  adoption: AdoptionSchema.optional(),
  actionTimeout: durationString(
    { min: '10s', max: '168h', maxInWords: '7 days' },
    'Longest one action (a Job, a sync) may run before it counts as failed; 10s to 168h.',
  ).default('30m'),
  approvalTimeout: durationString(
    { min: '30s', max: '720h', maxInWords: '30 days' },
    'Longest a plan waits for approval before it expires; 30s to 720h.',
  ).default('72h'),
  maintenance: MaintenanceSchema.optional(),
  workloads: WorkloadsSchema.optional(),
});

export const ClusterRuntimeSpecSchema = apiObject(SPEC_OBJECT).meta({
  description: 'The software stack the cluster should run, and how the control plane moves it there.',
});
export type ClusterRuntimeSpec = z.output<typeof ClusterRuntimeSpecSchema>;

/** A top-level field of the spec. */
export type SpecField = keyof ClusterRuntimeSpec;

/** Every top-level field of the spec, as the schema declares them. */
export const SPEC_FIELDS = Object.keys(SPEC_OBJECT.shape) as SpecField[];

const NodeGroupSchema = z
  .object({
    name: boundedString(253, "The node group, from its nodes' node-group label (or their instance type)."),
    instanceType: boundedString(128, 'The instance type of its nodes.').optional(),
    nodes: described(z.int().min(0), 'How many Nodes it has now.'),
    gpu: z
      .object({
        product: boundedString(128, 'GPU product, from the feature discovery label.'),
        count: described(z.int().min(0), 'GPUs per node, from the Node capacity.'),
      })
      .meta({ description: 'The GPUs of each of its nodes; absent for a group without GPUs.' })
      .optional(),
    taints: described(z.array(boundedString(512, 'A taint as key=value:effect.')).max(32), 'Taints its nodes carry.'),
  })
  .meta({ description: 'One node group of the cluster.' });

const planRef = (description: string): z.ZodString => boundedString(253, description);

export const ClusterRuntimeStatusSchema = z
  .object({
    observedGeneration: described(z.int().min(0), 'The spec generation this status describes.').optional(),
    conditions: described(
      z.array(ConditionSchema).max(32),
      'Ready, Reconciling, Stalled and the domain conditions, one per type.',
    )
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
      .optional(),
    activePlan: planRef('The plan the cluster runs now.').optional(),
    candidatePlan: planRef(
      'The plan resolved from the current inputs (criteria, snapshot, overrides, AICR version).',
    ).optional(),
    targetPlan: planRef(
      'The plan the cluster is moving to: the candidate, or the plan spec.selection pins.',
    ).optional(),
    discovery: z
      .object({
        nodeGroups: described(
          z.array(NodeGroupSchema).max(64),
          'The node groups read from the Node objects, GPU groups first.',
        ).optional(),
        snapshot: z
          .object({
            configMap: boundedString(
              253,
              'ConfigMap in aicr-system holding the latest snapshot of the cluster.',
            ).optional(),
            digest: boundedString(128, 'sha256 digest of the snapshot document that ConfigMap holds.').optional(),
            resnapshot: boundedString(
              253,
              'The operator.aicr.run/resnapshot value the latest snapshot was taken for.',
            ).optional(),
            waiting: boundedString(2048, 'What a snapshot under way is waiting for.').optional(),
            failure: z
              .object({
                reason: boundedString(
                  64,
                  'Why discovery could not give a usable snapshot, as a reason Resolved carries.',
                ),
                message: boundedString(4096, 'The cause and the fix.'),
              })
              .meta({ description: 'Why the latest discovery failed; absent once it succeeds.' })
              .optional(),
          })
          .meta({ description: 'The latest snapshot of the cluster.' })
          .optional(),
      })
      .meta({ description: 'What discovery found out about the cluster.' })
      .optional(),
    notifications: z
      .object({
        sent: described(z.int().min(0), 'How many notifications were sent for this runtime.'),
        rollout: boundedString(
          512,
          'The rollout state last told (awaiting approval, ended, or a wait that started); empty ' +
            'when none is worth telling.',
        ),
        released: boundedString(512, 'The released plan last told; empty while the runtime is not Released.'),
        stalled: boundedString(
          512,
          'The stall last told, as its reason and transition time; empty while the runtime is not Stalled.',
        ),
      })
      .meta({ description: 'What the notify step last told (EventBridge notifications), so a state is told once.' })
      .optional(),
    observedSpec: z
      .record(
        z.string(),
        boundedString(64, 'Digest of the part of the spec the step read when it last wrote its conditions.'),
      )
      .meta({
        maxProperties: 16,
        description:
          'For each step whose conditions depend on only part of the spec, keyed by step: what that ' +
          'part was at its last report. Its conditions stay current across changes to the rest of ' +
          'the spec.',
      })
      .optional(),
  })
  .meta({ description: 'What the control plane observed and did; written only by the control plane.' });
export type ClusterRuntimeStatus = z.output<typeof ClusterRuntimeStatusSchema>;

export const nameIsCluster: CelCheck<{ metadata: { name: string } }> = {
  rule: `self.metadata.name == '${RUNTIME_NAME}'`,
  message: `must be ${RUNTIME_NAME}: a cluster has exactly one ClusterRuntime`,
  fieldPath: '.metadata.name',
  reason: 'FieldValueInvalid',
  holds: (o) => o.metadata.name === RUNTIME_NAME,
};

/** What the control plane accepts as a ClusterRuntime; issue paths start at the object root. */
export const ClusterRuntimeSchema = z.object({
  metadata: z.object({ name: z.literal(RUNTIME_NAME, { error: nameIsCluster.message }) }),
  spec: ClusterRuntimeSpecSchema,
});

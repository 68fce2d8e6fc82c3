// The table of steps: the one place a step is declared. The dispatcher, the forwarder, queue
// routes, configuration, condition owners and field managers are derived from it; each queue's
// handler (functions/<queue>.ts), local mode's runners (runners.ts), the per-step parts of
// serverless.yml, the chart's RBAC and the owners table of docs/conditions.md are generated from
// it (npm run gen:steps), and unit tests fail when a committed copy is stale. Adding a step: its
// name in STEP (shared/api/constants.ts, where the layers below the steps read it), a row here and
// its folder shared/steps/<name in camelCase>/ (index.ts exporting run<Name>, rbac.ts, aws.ts);
// then npm run gen:steps.
// Kept free of runner imports so a function bundles only the steps it runs.
import { type ApiStepName, CONDITION, STEP, stepFieldManager, type DomainConditionType } from '../api/constants.ts';
import type { KubeRule } from '../api/kubeRule.ts';
import { SPEC_FIELDS, type SpecField } from '../api/clusterRuntime.ts';
import { DRIFT_CHECK_AWS } from './driftCheck/aws.ts';
import { NOTIFY_AWS } from './notify/aws.ts';
import { RESOLVE_AWS } from './resolve/aws.ts';
import { ROLLOUT_AWS } from './rollout/aws.ts';
import { SNAPSHOT_AWS } from './snapshot/aws.ts';
import type { StepAws } from './stepAws.ts';
import { TOKEN_REFRESH_AWS } from './tokenRefresh/aws.ts';
import { DRIFT_CHECK_RBAC } from './driftCheck/rbac.ts';
import { NOTIFY_RBAC } from './notify/rbac.ts';
import { RESOLVE_RBAC } from './resolve/rbac.ts';
import { ROLLOUT_RBAC } from './rollout/rbac.ts';
import { SNAPSHOT_RBAC } from './snapshot/rbac.ts';
import { TOKEN_REFRESH_RBAC } from './tokenRefresh/rbac.ts';

/** What makes the forwarder enqueue a step. Watched kinds beyond the runtime come with their steps. */
export const WAKE = {
  runtimeChange: 'runtime-change',
  /** Resolution's AICR runs (recipe, render). */
  aicrRun: 'aicr-run',
  /** The upgrade assessment's AICR runs. */
  assessmentRun: 'assessment-run',
  /** What discovery reports in the runtime's status: a new snapshot, a failure, what it waits for. */
  discoveryChange: 'discovery-change',
  snapshotRun: 'snapshot-run',
  nodeChange: 'node-change',
  planChange: 'plan-change',
  targetChange: 'target-change',
  rolloutChange: 'rollout-change',
  /** An owned Application's spec, what Argo CD reports about it, or its deletion. */
  applicationChange: 'application-change',
  /** An owned Application's spec edited, or the Application deleted. */
  applicationSpecChange: 'application-spec-change',
  /** Argo CD's registry Secret deleted or edited. */
  registryCredentialsChange: 'registry-credentials-change',
  /** The runtime's Released or Stalled condition, or its plans, moved: something may be worth telling. */
  noticeChange: 'notice-change',
  /** The control plane's configuration (the chart's ConfigMap) changed: every step that reads it looks again. */
  configurationChange: 'configuration-change',
} as const;
export type Wake = (typeof WAKE)[keyof typeof WAKE];

export interface StepRow {
  readonly name: string;
  readonly description: string;
  /** The FIFO queue and Lambda function that run it; steps may share one. */
  readonly queue: string;
  /** Domain conditions only this step writes (shared/api/reasons.ts says which reasons each carries). */
  readonly owns: readonly DomainConditionType[];
  /** Its server-side-apply field manager, which its name decides (stepFieldManager). */
  readonly fieldManager: string;
  /** Status fields (besides conditions) only this step writes, in the same apply as its conditions. */
  readonly ownsFields?: readonly string[];
  /**
   * The spec fields its looks depend on; undefined, all of them. A change to another field neither
   * wakes it nor makes its conditions stale (shared/status/specPart.ts).
   */
  readonly specFields?: readonly SpecField[];
  /**
   * Acts while the runtime is being deleted (the step that holds its finalizer). The others do
   * nothing then, so a deletion starting does not wake them.
   */
  readonly actsOnDeletion?: boolean;
  /**
   * Reads the configuration at every look: the framework starts that read beside the runtime's,
   * and its identity may get the configuration's ConfigMap (shared/rbac/stepRules.ts).
   */
  readonly readsConfiguration?: boolean;
  /** What it records Events on; its identity may then write Events, counting repeats (shared/rbac/stepRules.ts). */
  readonly recordsEventsOn?: string;
  /** The function's timeout; its queue's visibility timeout is six times this. */
  readonly timeoutSeconds: number;
  readonly wakesOn: readonly Wake[];
  /**
   * What the step's own Kubernetes identity may do beyond what its flags imply (its folder's
   * rbac.ts); the chart's RBAC is generated from both.
   */
  readonly kube: readonly KubeRule[];
  /** What its function needs in AWS beyond every step's (its folder's aws.ts); serverless.yml is generated from it. */
  readonly aws: StepAws;
}

/**
 * The rollout step's part of the spec: all of it but what reaches it through the target plan
 * resolve writes (criteria, components), which wakes it when the plan moves, and actionTimeout,
 * which a step in flight reads at its next look. So a runtime change that resolution alone acts
 * on costs no rollout look while resolution runs.
 */
const ROLLOUT_SPEC_FIELDS = SPEC_FIELDS.filter((f) => !['criteria', 'components', 'actionTimeout'].includes(f));

const ROWS = [
  {
    name: STEP.resolve,
    description: 'Resolve step - discovers the cluster and resolves the target plan; owns Resolved',
    queue: 'resolve',
    owns: [CONDITION.resolved],
    ownsFields: ['candidatePlan', 'targetPlan'],
    readsConfiguration: true,
    recordsEventsOn: 'the runtime',
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.discoveryChange, WAKE.aicrRun, WAKE.planChange, WAKE.configurationChange],
    kube: RESOLVE_RBAC,
    aws: RESOLVE_AWS,
  },
  {
    name: STEP.snapshot,
    description:
      'Snapshot step - reads the node groups and keeps an AICR snapshot of the cluster; writes status.discovery',
    queue: 'snapshot',
    owns: [],
    // actionTimeout bounds only the Jobs it starts later; a change to it needs no look.
    specFields: SPEC_FIELDS.filter((f) => f !== 'actionTimeout'),
    readsConfiguration: true,
    recordsEventsOn: 'the runtime',
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.snapshotRun, WAKE.nodeChange, WAKE.configurationChange],
    kube: SNAPSHOT_RBAC,
    aws: SNAPSHOT_AWS,
  },
  {
    name: STEP.rollout,
    description:
      'Rollout step - moves the runtime from its active plan to its target plan through RuntimeRollouts, ' +
      'writing Argo CD Applications release by release; owns Released and EngineAvailable',
    queue: 'rollout',
    owns: [CONDITION.engineAvailable, CONDITION.released],
    ownsFields: ['activePlan'],
    specFields: ROLLOUT_SPEC_FIELDS,
    actsOnDeletion: true,
    readsConfiguration: true,
    recordsEventsOn: 'the runtime and its rollouts',
    timeoutSeconds: 30,
    // Argo CD's registry Secret too: a refreshed token ends RegistryCredentialsStale at once, not at the next recheck.
    wakesOn: [
      WAKE.runtimeChange,
      WAKE.targetChange,
      WAKE.rolloutChange,
      WAKE.assessmentRun,
      WAKE.applicationChange,
      WAKE.registryCredentialsChange,
      WAKE.configurationChange,
    ],
    kube: ROLLOUT_RBAC,
    aws: ROLLOUT_AWS,
  },
  {
    name: STEP.tokenRefresh,
    description:
      "Token-refresh step - in aws registry mode keeps Argo CD's registry credentials " +
      '(Secret argocd/aicr-registry) holding a fresh ECR token',
    queue: 'token-refresh',
    owns: [],
    // It reads none of the spec: a runtime's arrival and its annotations (a refresh asked) wake it.
    specFields: [],
    readsConfiguration: true,
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.registryCredentialsChange, WAKE.configurationChange],
    kube: TOKEN_REFRESH_RBAC,
    aws: TOKEN_REFRESH_AWS,
  },
  {
    name: STEP.driftCheck,
    description:
      'Drift-check step - between rollouts compares the owned Applications with the active and target plans: ' +
      'writes a deleted Application again from the active plan, rebuilds a lost active plan from the ' +
      'Applications, and refuses objects of a newer control plane; owns InventoryConsistent',
    queue: 'drift-check',
    owns: [CONDITION.inventoryConsistent],
    // Maintenance windows hold its rewrites; nothing else of the spec is its concern.
    specFields: ['maintenance'],
    readsConfiguration: true,
    recordsEventsOn: 'the runtime (ApplicationRecreated, PlanRebuilt)',
    timeoutSeconds: 30,
    wakesOn: [
      WAKE.runtimeChange,
      WAKE.targetChange,
      WAKE.rolloutChange,
      WAKE.planChange,
      WAKE.applicationSpecChange,
      WAKE.configurationChange,
    ],
    kube: DRIFT_CHECK_RBAC,
    aws: DRIFT_CHECK_AWS,
  },
  {
    name: STEP.notify,
    description:
      'Notify step - puts a notification on EventBridge (or the log) when a rollout awaits approval, ' +
      'ends failed, expired or revoked, or starts a window or workload wait, and when the runtime is Released ' +
      'or newly Stalled; writes status.notifications',
    queue: 'notify',
    owns: [],
    timeoutSeconds: 30,
    wakesOn: [WAKE.noticeChange],
    kube: NOTIFY_RBAC,
    aws: NOTIFY_AWS,
  },
] as const satisfies readonly (Omit<StepRow, 'fieldManager'> & { readonly name: ApiStepName })[];

export const STEP_TABLE = ROWS.map((r) => ({
  ...r,
  fieldManager: stepFieldManager(r.name),
})) satisfies readonly StepRow[];

export type StepName = (typeof STEP_TABLE)[number]['name'];
export type QueueName = (typeof STEP_TABLE)[number]['queue'];
export const QUEUE_NAMES: readonly QueueName[] = [...new Set(STEP_TABLE.map((r) => r.queue))];

/**
 * The one owner of each domain condition, as the rows say; a condition no row owns is nobody's
 * until its step is built.
 */
export const CONDITION_OWNER: Readonly<Partial<Record<DomainConditionType, StepName>>> = Object.fromEntries(
  STEP_TABLE.flatMap((r) => r.owns.map((type) => [type, r.name])),
);

export function stepRow(name: string, table: readonly StepRow[] = STEP_TABLE): StepRow | undefined {
  return table.find((r) => r.name === name);
}

/** Domain conditions some step of the table writes: the ones a summary waits for. */
export function ownedConditions(table: readonly StepRow[] = STEP_TABLE): DomainConditionType[] {
  return table.flatMap((r) => [...r.owns]);
}

/** The queue a step's messages go to. */
export function queueOf(step: string, table: readonly StepRow[] = STEP_TABLE): string {
  const row = stepRow(step, table);
  if (!row) throw new Error(`no step named ${step} in the step table`);
  return row.queue;
}

/** The `AICR_*` settings that carry a queue's URL, ARN and dead-letter URL. */
export function queueSettings(queue: string): { readonly url: string; readonly arn: string; readonly dlqUrl: string } {
  const key = queue.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return { url: `AICR_${key}_QUEUE_URL`, arn: `AICR_${key}_QUEUE_ARN`, dlqUrl: `AICR_${key}_DLQ_URL` };
}

/**
 * The one setting that gives every step queue's URL: the deployment names its queues
 * `<service>-<stage>-<queue>.fifo`, so a queue's URL is this base (the URL up to and with that
 * prefix) followed by stepQueueName(queue). The functions that send to every step queue take it
 * instead of one URL per queue, which a fleet's cluster names need the room of.
 */
export const QUEUE_URL_BASE_SETTING = 'AICR_QUEUE_URL_BASE';

/** A step queue's name after the deployment's prefix: what serverless.yml names it, and what completes a URL base. */
export function stepQueueName(queue: string): string {
  return `${queue}.fifo`;
}

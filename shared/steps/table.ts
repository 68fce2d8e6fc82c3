// The table of steps: the one place a step is declared. The dispatcher, the forwarder, queue
// routes and configuration are derived from it; functions/, serverless.yml and the chart's RBAC
// (infra/chart/templates/rbac.yaml) are
// checked against it by test/unit/steps.table.test.ts, so a step missing anywhere fails the
// suite. Adding a step: a row here, its runner under shared/steps/<name>/, an entry in
// runners.ts, a handler in functions/, and its queue, function and role in serverless.yml.
// Kept free of runner imports so a function bundles only the steps it runs.
import { AICR_VALIDATE_SERVICE_ACCOUNT, API_GROUP, ARGOCD_REGISTRY_SECRET, CONDITION, KINDS, CONFIGURATION, FIELD_MANAGER, NAMESPACES, type DomainConditionType } from '../api/constants.ts';

/** What makes the forwarder enqueue a step. Watched kinds beyond the runtime come with their steps. */
export const WAKE = {
  runtimeChange: 'runtime-change',
  aicrRun: 'aicr-run',
  snapshotRun: 'snapshot-run',
  nodeChange: 'node-change',
  planChange: 'plan-change',
  targetChange: 'target-change',
  rolloutChange: 'rollout-change',
  applicationChange: 'application-change',
  /** Argo CD's registry Secret deleted or edited. */
  registryCredentialsChange: 'registry-credentials-change',
} as const;
export type Wake = (typeof WAKE)[keyof typeof WAKE];

/** One RBAC rule a step's identity holds; `namespace` makes it a Role there instead of cluster-wide. */
export interface KubeRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly namespace?: string;
  readonly resourceNames?: readonly string[];
  /** Why the step needs it; written beside the rule in the chart's RBAC. */
  readonly why: string;
}

export interface StepRow {
  readonly name: string;
  readonly description: string;
  /** The FIFO queue and Lambda function that run it; steps may share one. */
  readonly queue: string;
  /** Domain conditions only this step writes (shared/status/reasons.ts says which reasons each carries). */
  readonly owns: readonly DomainConditionType[];
  readonly fieldManager: string;
  /** Status fields (besides conditions) only this step writes, in the same apply as its conditions. */
  readonly ownsFields?: readonly string[];
  /** The function's timeout; its queue's visibility timeout is six times this. */
  readonly timeoutSeconds: number;
  readonly wakesOn: readonly Wake[];
  /** Everything the step's own Kubernetes identity may do; the chart's RBAC is generated from it. */
  readonly kube: readonly KubeRule[];
}

export const STEP_TABLE = [
  {
    name: 'resolve',
    description: 'Resolve step - discovers the cluster and resolves the target plan; owns Resolved',
    queue: 'resolve',
    owns: [CONDITION.resolved],
    fieldManager: FIELD_MANAGER.resolve,
    ownsFields: ['candidatePlan', 'targetPlan'],
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.aicrRun, WAKE.planChange],
    kube: [
      { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get'], why: 'reads the runtime it was sent' },
      { apiGroups: [API_GROUP], resources: ['clusterruntimes/status'], verbs: ['patch'], why: 'applies Resolved and the summary conditions' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], namespace: NAMESPACES.system, resourceNames: [CONFIGURATION.name], why: 'reads the configuration the chart renders' },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'], namespace: NAMESPACES.events, why: 'records Events on the runtime, counting repeats' },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'create', 'patch', 'delete'], namespace: NAMESPACES.jobs, why: 'runs AICR recipe and render stages as Jobs and records how failed runs count' },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], namespace: NAMESPACES.jobs, why: 'reads why a run waits and how it ended' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'patch', 'delete'], namespace: NAMESPACES.jobs, why: 'collects recipe output, gives a recipe run its snapshot, records what a render pushed, and removes outputs of changed inputs' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'], namespace: NAMESPACES.system, why: 'reads the latest snapshot named in status.discovery, and writes, replaces, reads and retires plans (names carry their digest)' },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespace: NAMESPACES.system, why: 'reads the registry credentials (registry.auth.staticSecretRef, named by configuration) to pull the bundle a render pushed' },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'patch'], namespace: NAMESPACES.jobs, why: 'checks the render Jobs have the static registry Secret, and in aws mode writes them a docker config with a minted ECR token' },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespace: NAMESPACES.validation, why: 'checks the validation Jobs have the static registry Secret, to name the namespace when they do not' },
    ],
  },
  {
    name: 'snapshot',
    description: 'Snapshot step - reads the node groups and keeps an AICR snapshot of the cluster; writes status.discovery',
    queue: 'snapshot',
    owns: [],
    fieldManager: FIELD_MANAGER.snapshot,
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.snapshotRun, WAKE.nodeChange],
    kube: [
      { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get'], why: 'reads the runtime it was sent' },
      { apiGroups: [API_GROUP], resources: ['clusterruntimes/status'], verbs: ['patch'], why: 'applies status.discovery' },
      { apiGroups: [''], resources: ['nodes'], verbs: ['list'], why: 'reads the node groups from the Nodes' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], namespace: NAMESPACES.system, resourceNames: [CONFIGURATION.name], why: 'reads the configuration the chart renders' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'delete'], namespace: NAMESPACES.system, why: 'publishes the latest snapshot and removes earlier ones' },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'], namespace: NAMESPACES.events, why: 'records Events on the runtime, counting repeats' },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'create', 'patch', 'delete'], namespace: NAMESPACES.discovery, why: "runs AICR's snapshot agent as a Job and records how failed runs count" },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], namespace: NAMESPACES.discovery, why: 'reads why a run waits and how it ended' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'delete'], namespace: NAMESPACES.discovery, why: "reads the agent's output and removes it once copied" },
    ],
  },
  {
    name: 'rollout',
    description: 'Rollout step - moves the runtime from its active plan to its target plan through RuntimeRollouts, writing Argo CD Applications release by release; owns Released and EngineAvailable',
    queue: 'rollout',
    owns: [CONDITION.engineAvailable, CONDITION.released],
    fieldManager: FIELD_MANAGER.rollout,
    ownsFields: ['activePlan'],
    timeoutSeconds: 30,
    // Argo CD's registry Secret too: a refreshed token ends RegistryCredentialsStale at once, not at the next recheck.
    wakesOn: [WAKE.runtimeChange, WAKE.targetChange, WAKE.rolloutChange, WAKE.aicrRun, WAKE.applicationChange, WAKE.registryCredentialsChange],
    kube: [
      { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get', 'patch'], why: 'reads the runtime it was sent, and adds and removes its cleanup finalizer (metadata.finalizers only)' },
      { apiGroups: [API_GROUP], resources: ['clusterruntimes/status'], verbs: ['patch'], why: 'applies Released, status.activePlan and the summary conditions' },
      { apiGroups: [API_GROUP], resources: [KINDS.runtimeRollout.plural], verbs: ['get', 'list', 'create', 'patch'], why: 'reads and creates rollouts, and clears an approval it refused so a fresh one can be recorded' },
      { apiGroups: [API_GROUP], resources: [`${KINDS.runtimeRollout.plural}/status`], verbs: ['patch'], why: "applies each rollout's conditions, verdict on its approval and outcome" },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], namespace: NAMESPACES.system, why: 'reads the active and target plans, and the configuration the chart renders' },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'create', 'patch', 'delete'], namespace: NAMESPACES.jobs, why: 'runs aicr upgrade-check as an assessment Job and records how failed runs count' },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], namespace: NAMESPACES.jobs, why: 'reads why an assessment run waits and how it ended' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'patch', 'delete'], namespace: NAMESPACES.jobs, why: "gives an assessment run the two plans' recipes, collects its verdicts, and removes those of changed inputs" },
      { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: [NAMESPACES.validation], why: 'reads whether deployment validation is installed: its namespace' },
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'], namespace: NAMESPACES.validation, resourceNames: [AICR_VALIDATE_SERVICE_ACCOUNT], why: 'reads whether deployment validation is installed: the identity aicr validate runs as' },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['list', 'create', 'patch', 'delete'], namespace: NAMESPACES.validation, why: "runs aicr validate as a Job, records how failed runs count, and deletes AICR's validator Jobs that break the image pins" },
      { apiGroups: [''], resources: ['pods'], verbs: ['list'], namespace: NAMESPACES.validation, why: "reads why a validation run waits and how it ended, and the images AICR's validator Pods run" },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'patch', 'delete'], namespace: NAMESPACES.validation, why: "gives a validation run the plan's recipe and the snapshot, reads its CTRF report, and removes those of earlier rollouts" },
      { apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'], why: "reads the owned Applications a rollout is assessed against, and writes, finalizes and deletes them release by release (cluster-wide: a Role would need Argo CD's namespace to exist when the chart installs)" },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'], namespace: NAMESPACES.events, why: 'records Events on the runtime and its rollouts, counting repeats' },
      { apiGroups: ['apps'], resources: ['statefulsets', 'deployments'], verbs: ['list'], why: "reads whether Argo CD's application controller is up (cluster-wide, for the same reason as Applications)" },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespace: ARGOCD_REGISTRY_SECRET.namespace, resourceNames: [ARGOCD_REGISTRY_SECRET.name], why: "reads when Argo CD's registry token expires (aws mode), to hold rollouts while it is stale" },
    ],
  },
  {
    name: 'token-refresh',
    description: "Token-refresh step - in aws registry mode keeps Argo CD's registry credentials (Secret argocd/aicr-registry) holding a fresh ECR token",
    queue: 'token-refresh',
    owns: [],
    fieldManager: FIELD_MANAGER.tokenRefresh,
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.registryCredentialsChange],
    kube: [
      { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get'], why: 'reads the runtime it was sent, and the refresh a person asked for on it' },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], namespace: NAMESPACES.system, resourceNames: [CONFIGURATION.name], why: 'reads the configuration the chart renders' },
      // A server-side apply that creates the Secret is authorized as create with its name, so all three verbs hold to the one name.
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'patch'], namespace: ARGOCD_REGISTRY_SECRET.namespace, resourceNames: [ARGOCD_REGISTRY_SECRET.name], why: "reads and writes Argo CD's registry credentials, and no other Secret" },
    ],
  },
  {
    name: 'drift-check',
    description: 'Drift-check step - between rollouts compares the owned Applications with the active and target plans: writes a deleted Application again from the active plan, rebuilds a lost active plan from the Applications, and refuses objects of a newer control plane; owns InventoryConsistent',
    queue: 'drift-check',
    owns: [CONDITION.inventoryConsistent],
    fieldManager: FIELD_MANAGER.driftCheck,
    timeoutSeconds: 30,
    wakesOn: [WAKE.runtimeChange, WAKE.targetChange, WAKE.rolloutChange, WAKE.planChange, WAKE.applicationChange],
    kube: [
      { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get'], why: 'reads the runtime it was sent' },
      { apiGroups: [API_GROUP], resources: ['clusterruntimes/status'], verbs: ['patch'], why: 'applies InventoryConsistent and the summary conditions' },
      { apiGroups: [API_GROUP], resources: [KINDS.runtimeRollout.plural], verbs: ['list'], why: 'reads whether a rollout is in progress, which releases an unsuccessful one moved, and which schema each was written in' },
      // A server-side apply that creates a plan is authorized as create; the plan admission policy lets this group create plans and change none.
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'], namespace: NAMESPACES.system, why: 'reads the active and target plans and the configuration, and writes back an active plan rebuilt from the Applications to its own digest' },
      { apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['list', 'create', 'patch'], why: 'reads the owned Applications and writes a deleted one again from the active plan (cluster-wide, for the same reason as the rollout step)' },
      { apiGroups: ['apps'], resources: ['statefulsets', 'deployments'], verbs: ['list'], why: "reads whether Argo CD's application controller is up before writing an Application again" },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], namespace: ARGOCD_REGISTRY_SECRET.namespace, resourceNames: [ARGOCD_REGISTRY_SECRET.name], why: "reads when Argo CD's registry token expires (aws mode), as the rollout step does before it writes" },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'get', 'patch'], namespace: NAMESPACES.events, why: 'records Events on the runtime (ApplicationRecreated, PlanRebuilt), counting repeats' },
    ],
  },
] as const satisfies readonly StepRow[];

export type StepName = (typeof STEP_TABLE)[number]['name'];
export type QueueName = (typeof STEP_TABLE)[number]['queue'];
export const STEP_NAMES: readonly StepName[] = STEP_TABLE.map((r) => r.name);
export const QUEUE_NAMES: readonly QueueName[] = [...new Set(STEP_TABLE.map((r) => r.queue))];

/**
 * The one owner of each domain condition. An owner without a row (a step still to be built)
 * must be listed in PLANNED_STEPS; until it exists nobody writes its condition and the summary
 * does not wait for it.
 */
export const CONDITION_OWNER: Readonly<Record<DomainConditionType, string>> = {
  [CONDITION.resolved]: 'resolve',
  [CONDITION.engineAvailable]: 'rollout',
  [CONDITION.inventoryConsistent]: 'drift-check',
  [CONDITION.released]: 'rollout',
};
export const PLANNED_STEPS: readonly string[] = [];

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

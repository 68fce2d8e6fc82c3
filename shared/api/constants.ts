// Every name the control plane shares with the cluster, defined once. Tests, docs and the
// kubectl commands in docs/troubleshooting.md use exactly these strings.

export const API_GROUP = 'operator.aicr.run';
export const API_VERSION = 'v1alpha1';
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

/** The only accepted name of the cluster-scoped ClusterRuntime. */
export const RUNTIME_NAME = 'cluster';
/**
 * How each type of RuntimeRollout's name starts (shared/rollout/io/record.ts); the finalizer policy
 * reads delete-rollout by them.
 */
export const ROLLOUT_NAME_PREFIX = { Upgrade: 'aicr-rollout-', Adopt: 'aicr-adopt-', Remove: 'aicr-removal-' } as const;

export const KINDS = {
  clusterRuntime: {
    kind: 'ClusterRuntime',
    plural: 'clusterruntimes',
    singular: 'clusterruntime',
    shortNames: ['cr', 'aicr'],
  },
  runtimeRollout: {
    kind: 'RuntimeRollout',
    plural: 'runtimerollouts',
    singular: 'runtimerollout',
    shortNames: ['rro'],
  },
} as const;

export const NAMESPACES = {
  system: 'aicr-system',
  discovery: 'aicr-discovery',
  jobs: 'aicr-jobs',
  validation: 'aicr-validation',
  argocd: 'argocd',
  /** Where Events about cluster-scoped objects (the runtime, rollouts) must live. */
  events: 'default',
} as const;

/**
 * Condition types on a ClusterRuntime. The three summary types follow kstatus and are derived
 * (shared/status/summarize.ts); each domain type has exactly one owning step
 * (shared/steps/table.ts). Reasons live in ./reasons.ts.
 */
export const CONDITION = {
  ready: 'Ready',
  reconciling: 'Reconciling',
  stalled: 'Stalled',
  resolved: 'Resolved',
  engineAvailable: 'EngineAvailable',
  /**
   * The drift check's verdict between rollouts: True while the active plan's ConfigMap is there
   * (or was rebuilt) and every owned Application it names exists (or was written again).
   */
  inventoryConsistent: 'InventoryConsistent',
  /** The rollout side on the runtime: True once the target plan is rolled out and validated. */
  released: 'Released',
} as const;
export type ConditionType = (typeof CONDITION)[keyof typeof CONDITION];
export const SUMMARY_CONDITIONS = [CONDITION.ready, CONDITION.reconciling, CONDITION.stalled] as const;
export type SummaryConditionType = (typeof SUMMARY_CONDITIONS)[number];
export type DomainConditionType = Exclude<ConditionType, SummaryConditionType>;
/** Domain conditions in the order a summary looks at them: the earliest one explains the runtime. */
export const DOMAIN_CONDITIONS = [
  CONDITION.resolved,
  CONDITION.engineAvailable,
  CONDITION.inventoryConsistent,
  CONDITION.released,
] as const satisfies readonly DomainConditionType[];

/**
 * The first AICR release this control plane runs `aicr upgrade-check` with; earlier ones have no such
 * command, and their moves are assessed `unknown` (docs/adr/0009).
 */
export const AICR_UPGRADE_CHECK_SINCE = 'v0.17.0';

export const LABEL = {
  stage: `${API_GROUP}/stage`,
  input: `${API_GROUP}/input`,
  role: `${API_GROUP}/role`,
  schemaVersion: `${API_GROUP}/schema-version`,
  managedBy: 'app.kubernetes.io/managed-by',
} as const;

export const ANNOTATION = {
  resnapshot: `${API_GROUP}/resnapshot`,
  /** Any new value makes the forwarder enqueue the runtime's steps at once (docs/operations.md). */
  reconcileRequest: `${API_GROUP}/reconcile-request`,
  runtimeUID: `${API_GROUP}/runtime-uid`,
  planDigest: `${API_GROUP}/plan-digest`,
  orphanedFrom: `${API_GROUP}/orphaned-from`,
  deleteRollout: `${API_GROUP}/delete-rollout`,
  tokenExpiresAt: `${API_GROUP}/token-expires-at`,
  /** On Argo CD's registry Secret: when the control plane last minted its token (RFC 3339). */
  tokenRefreshedAt: `${API_GROUP}/token-refreshed-at`,
  /**
   * On the runtime: any new value asks the token-refresh step to mint a token now (REG-5, kubectl aicr
   * refresh-credentials).
   */
  refreshCredentials: `${API_GROUP}/refresh-credentials`,
  /** On Argo CD's registry Secret: the refresh-credentials value the last mint answered, so one request mints once. */
  refreshAnswered: `${API_GROUP}/refresh-answered`,
  /** On a finished AICR Job: its exit code, as the control plane read it from the Pod. */
  exitCode: `${API_GROUP}/exit-code`,
  /** On a failed AICR Job: how the failure counts (shared/aicr/verdict.ts). */
  verdict: `${API_GROUP}/verdict`,
  /** On a failed AICR Job: the end of its error output. */
  errorTail: `${API_GROUP}/error-tail`,
  /** On a plan: "rebuilt" when the drift check rebuilt it from the Applications, so it has no recipe (PLAN-6). */
  planOrigin: `${API_GROUP}/plan-origin`,
  /** On an owned Application: the release's 0-based place in the plan's deployment order. */
  releaseOrder: `${API_GROUP}/release-order`,
  /** On an owned Application: the releases it needs first, comma-separated; absent when none. */
  dependsOn: `${API_GROUP}/depends-on`,
  /** On an owned Application: "true" when a person runs the release's steps; absent otherwise. */
  manual: `${API_GROUP}/manual`,
  /** On an owned Application: a manual release's steps as a JSON list of strings; absent when none. */
  steps: `${API_GROUP}/steps`,
  /**
   * On an owned Application: the manifest digest of its chart source, as the plan recorded it (SEC-5);
   * absent in older plans.
   */
  chartDigest: `${API_GROUP}/chart-digest`,
  /** On an owned Application: the manifest digest of its manifests source, as the plan recorded it (SEC-5). */
  manifestsDigest: `${API_GROUP}/manifests-digest`,
  /**
   * On an owned Application whose chart source is pinned by digest (SEC-9): the chart version the
   * plan names, which the source itself no longer shows.
   */
  chartVersion: `${API_GROUP}/chart-version`,
  /** The same for its manifests source. */
  manifestsVersion: `${API_GROUP}/manifests-version`,
  /**
   * On an owned Application: set while spec.suspendEngine has its automated sync off, so only those
   * are turned back on.
   */
  engineSuspended: `${API_GROUP}/engine-suspended`,
} as const;

/** The control plane's configuration, rendered by the chart from its values. */
export const CONFIGURATION = { namespace: NAMESPACES.system, name: 'aicr-config', key: 'config.yaml' } as const;
/**
 * Keys of the configuration ConfigMap that the chart's admission policies read as their
 * parameters: CEL cannot parse YAML, so the chart renders what they check beside config.yaml,
 * one value per line (shared/configuration/admissionData.ts says how).
 */
export const ADMISSION_KEYS = {
  /** Every image aicr.versions pins: the only images a control-plane Job may run. */
  aicrImages: 'admission.aicr-images',
  /** aicr.validatorImages, keys (the tags AICR names) and pins alike: the only images AICR's validator Jobs may run. */
  validatorImages: 'admission.validator-images',
  /** argocd.project: the only AppProject an owned Application may name. */
  argocdProject: 'admission.argocd-project',
} as const;

/**
 * In aws mode: the docker-config Secret the control plane writes in aicr-jobs, holding a minted ECR
 * token for the Jobs that push.
 */
export const REGISTRY_JOB_SECRET = 'aicr-registry-ecr';
/** The chart value naming the static registry Secret, which RBAC rules grant by name. */
export const STATIC_SECRET_VALUE = 'registry.auth.staticSecretRef';
/**
 * In aws mode: Argo CD's repository Secret the token-refresh step writes, holding a minted ECR
 * token for the plan's charts. The only Secret that step's identity may write.
 */
export const ARGOCD_REGISTRY_SECRET = { namespace: NAMESPACES.argocd, name: 'aicr-registry' } as const;
/** The user name of every ECR authorization token. */
export const ECR_TOKEN_USER = 'AWS';
/** The metric carrying the expiry of Argo CD's registry token, as a Unix time (REG-4). */
export const TOKEN_EXPIRY_METRIC = 'aicr_operator_registry_token_expiry_timestamp_seconds';

/** The key of a kubernetes.io/dockerconfigjson Secret. */
export const DOCKER_CONFIG_KEY = '.dockerconfigjson';

/** The ServiceAccount AICR Jobs run as in aicr-jobs: it may write and read their output ConfigMaps only. */
export const AICR_RUNNER_SERVICE_ACCOUNT = 'aicr-runner';
/**
 * The ServiceAccount AICR's snapshot agent runs as in aicr-discovery: reads Nodes and Pods, writes its
 * output ConfigMap.
 */
export const AICR_SNAPSHOT_SERVICE_ACCOUNT = 'aicr-snapshot-agent';

/**
 * The ServiceAccount `aicr validate` runs as in aicr-validation. AICR v0.11.1 binds cluster-admin
 * to its validators' own ServiceAccount, so this one holds `bind` on that one ClusterRole
 * (docs/security.md says exactly what else).
 */
export const AICR_VALIDATE_SERVICE_ACCOUNT = 'aicr-validate';
/** What AICR v0.11.1 names its validators' ServiceAccount and their ClusterRoleBinding (fixed names, not per run). */
export const AICR_VALIDATOR_IDENTITY = 'aicr-validator';
/** The label AICR sets on its validator Jobs and Pods: the run they belong to. */
export const AICR_RUN_ID_LABEL = 'aicr.nvidia.com/run-id';

/** Node labels discovery reads: how EKS and NVIDIA's GPU feature discovery describe a Node. */
export const NODE_LABEL = {
  nodeGroup: 'eks.amazonaws.com/nodegroup',
  instanceType: 'node.kubernetes.io/instance-type',
  gpuPresent: 'nvidia.com/gpu.present',
  gpuProduct: 'nvidia.com/gpu.product',
  gpuCount: 'nvidia.com/gpu.count',
} as const;
/** The extended resource a GPU Node's capacity counts its GPUs in. */
export const GPU_RESOURCE = 'nvidia.com/gpu';

export const FINALIZER = {
  cleanup: `${API_GROUP}/cleanup`,
} as const;

/**
 * Every step's name, keyed as code names it. The step table (shared/steps/table.ts) takes each
 * row's name from here, so the layers below the steps can name a step's field manager or identity
 * without reading the table, and a name no row carries fails the step table's test.
 */
export const STEP = {
  resolve: 'resolve',
  /** Its field manager writes only status.discovery. */
  snapshot: 'snapshot',
  /** Its field manager also writes the owned Argo CD Applications. */
  rollout: 'rollout',
  /** Its field manager writes only Argo CD's registry Secret (ARGOCD_REGISTRY_SECRET). */
  tokenRefresh: 'token-refresh',
  /**
   * Its field manager writes only InventoryConsistent and plans rebuilt from the Applications;
   * Applications it writes again go under rollout's.
   */
  driftCheck: 'drift-check',
  /** Its field manager writes only status.notifications. */
  notify: 'notify',
} as const;
export type StepKey = keyof typeof STEP;
export type ApiStepName = (typeof STEP)[StepKey];

/**
 * A step's server-side-apply field manager, decided by its name: one per step, so steps never
 * clobber each other's fields, and a new step has its own by being named (its row carries it).
 */
export const stepFieldManager = <S extends string>(step: S): `aicr-${S}` => `aicr-${step}`;

type StepFieldManagers = { readonly [K in StepKey]: `aicr-${(typeof STEP)[K]}` };
// Object.fromEntries forgets the keys; the mapped type puts back what the map above guarantees.
const STEP_FIELD_MANAGERS = Object.fromEntries(
  Object.entries(STEP).map(([key, name]) => [key, stepFieldManager(name)]),
) as StepFieldManagers;

/** The field managers code names directly: each step's, by the rule, and the summary's. */
export const FIELD_MANAGER = {
  ...STEP_FIELD_MANAGERS,
  /** Writes only Ready, Reconciling, Stalled and status.observedGeneration; not a step, so not by the rule. */
  summary: 'aicr-status-summary',
} as const;

export const MANAGED_BY_VALUE = 'aicr-operator';

/** The role label's values: what a ConfigMap of the control plane holds. */
export const ROLE = {
  plan: 'plan',
} as const;

/** The plan payload's schema version (label operator.aicr.run/schema-version on every plan). */
export const PLAN_SCHEMA_VERSION = '1';
/**
 * The RuntimeRollout schema version this control plane writes (label operator.aicr.run/schema-version
 * on every rollout it creates). A rollout or plan labelled with a higher version was written by a
 * newer control plane: it is never read as this version nor rewritten down (PLAN-2).
 */
export const ROLLOUT_SCHEMA_VERSION = '1';

/** What owned Argo CD Applications hold besides the plan's own data (shared/plans/applications.ts). */
export const ARGOCD = {
  /** Argo CD's name for the cluster it runs in: releases always go to this cluster. */
  inClusterServer: 'https://kubernetes.default.svc',
  defaultProject: 'default',
  /** The AppProject the chart ships for the owned Applications, and argocd.project's default. */
  project: 'aicr',
  /** The scheme of Argo CD's native OCI source, which fetches an artifact by the digest it is given (SEC-9). */
  ociScheme: 'oci://',
  /** Source names: they say which of a release's charts a source is when there is only one. */
  sourceName: { chart: 'chart', manifests: 'manifests' },
  /** Argo CD deletes an Application's resources before the Application while it carries this (FIN-4). */
  resourcesFinalizer: 'resources-finalizer.argocd.argoproj.io',
  /** Asks Argo CD's application controller to refresh an Application; the controller removes it once done. */
  refreshAnnotation: 'argocd.argoproj.io/refresh',
  /** Labels of Argo CD's repository-credential Secrets. */
  secretTypeLabel: 'argocd.argoproj.io/secret-type',
  /**
   * A credential template: Argo CD lends it to every source whose repoURL starts with its url. The
   * Applications name each chart as oci://<registry.repository>/<chart> (SEC-9), so one template for
   * oci://<registry.repository> covers them all; the scheme also lets Argo CD parse a registry with
   * a port, which a scheme-less host:port does not.
   */
  repoCredsSecretType: 'repo-creds',
  /** Argo CD's credential type for its native OCI sources. */
  ociCredentialType: 'oci',
  /** How Argo CD's own manifests and chart label the application controller's workload. */
  controllerSelector: 'app.kubernetes.io/component=application-controller,app.kubernetes.io/part-of=argocd',
} as const;

/**
 * The chart's ValidatingAdmissionPolicy (and binding) that keeps Argo CD's resources finalizer
 * off owned Applications outside an approved Remove step (FIN-4): the control plane's identities
 * may not write an Application that carries it without the delete-rollout annotation.
 */
export const APPLICATION_ADMISSION = { name: 'aicr-application-finalizer' } as const;
/**
 * The chart's admission policies that hold the control plane's other writes (SEC-1…SEC-3):
 * the Jobs and Pods it runs, the configuration it must not change, and the Applications it
 * may write (its runtime's own, in the configured AppProject).
 */
export const SECURITY_ADMISSION = {
  workloads: 'aicr-run-workloads',
  protectedConfig: 'aicr-protected-configuration',
  applicationOwnership: 'aicr-application-ownership',
  applicationProject: 'aicr-application-project',
  runtimeSpec: 'aicr-runtime-spec',
  rolloutRecords: 'aicr-rollout-records',
} as const;

/**
 * Kubernetes groups the control plane's IAM roles map to (EKS access entries; the chart's RBAC): one
 * per function, so each holds only the rights its step-table row names.
 */
export const IDENTITY_GROUP = {
  forwarder: 'aicr:forwarder',
  step: (name: string): string => `aicr:step:${name}`,
} as const;
/** Kubernetes user names of the same identities, where a test or local mode impersonates them. */
export const IDENTITY_USER = {
  forwarder: 'aicr-forwarder',
  step: (name: string): string => `aicr-step-${name}`,
} as const;

/**
 * The groups whose requests may create or change a plan; the chart's admission policy denies
 * everyone else, cluster admins included, so a plan's payload and digest only ever come from
 * resolution. Deleting a plan stays open to anyone RBAC lets: it is the documented remedy.
 */
export const PLAN_WRITER_GROUPS = [IDENTITY_GROUP.step(STEP.resolve)] as const;
/**
 * Groups that may only create a plan, never change one: the drift check writes back an active
 * plan whose ConfigMap is gone when the Applications rebuild to its very digest (PLAN-4).
 */
export const PLAN_REBUILDER_GROUPS = [IDENTITY_GROUP.step(STEP.driftCheck)] as const;
/** The chart's ValidatingAdmissionPolicy (and its binding, of the same name) that holds plans to PLAN_WRITER_GROUPS. */
export const PLAN_ADMISSION = {
  name: 'aicr-plan-writers',
  /** What a refused writer reads, after the API server's own "… denied request: ". */
  message:
    `plan ConfigMaps (label ${LABEL.role}=${ROLE.plan} in ${NAMESPACES.system}) are written ` +
    `only by the control plane ` +
    `(group ${PLAN_WRITER_GROUPS.join(', ')}); to have a plan resolved again, delete it`,
} as const;

/**
 * Approving a rollout: RBAC grants the custom verb on runtimerollouts through the approver
 * ClusterRole, and the chart's admission policy checks it, together with the approver's
 * identity, on every write that changes spec.approval.
 */
export const APPROVAL = {
  /** Also the verb for acknowledging a manual release's recorded steps: the same people do both. */
  verb: 'approve',
  /** The ClusterRole the chart installs; bind it to the people who may approve. */
  approverRole: 'aicr-rollout-approver',
  /** The ValidatingAdmissionPolicy and its binding. */
  admission: 'aicr-rollout-approvals',
} as const;

/** Condition types on a RuntimeRollout besides the kstatus three. */
export const ROLLOUT_CONDITION = {
  /** True once the control plane accepted an approval; False with the reason it refused one. */
  approved: 'Approved',
} as const;

/** Where the forwarder records the resourceVersion it has forwarded up to. */
export const FORWARDER_CHECKPOINT = {
  namespace: NAMESPACES.system,
  name: 'aicr-forwarder-checkpoint',
  key: 'resourceVersion',
} as const;

/** The cluster-side Helm chart (infra/chart/) and the release name the docs, tests and local mode install it as. */
export const CHART = {
  name: 'aicr-control-plane',
  release: 'aicr-control-plane',
  namespace: NAMESPACES.system,
} as const;

/** Helm's annotation for what `helm uninstall` (and an upgrade to a chart without it) leaves in place. */
export const KEEP_ON_UNINSTALL = { 'helm.sh/resource-policy': 'keep' } as const;

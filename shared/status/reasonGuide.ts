// What each reason means for a person: where it shows, its cause and its fix. The one source
// of the reasons table in docs/troubleshooting.md (scripts/gen-docs.ts writes it; a unit test
// keeps the two equal) and of what `kubectl aicr describe` says about the runtime's current
// reason (KROP-2). The class column comes from shared/api/reasons.ts.
import { ANY_STEP_GUIDE } from './reasonGuide.anyStep.ts';
import { RELEASED_GUIDE } from './reasonGuide.released.ts';
import type { ReasonGuide } from './reasonGuideEntry.ts';

export type { ReasonGuide } from './reasonGuideEntry.ts';
import type { Reason, SUMMARY_REASON } from '../api/reasons.ts';

type SummaryReason = (typeof SUMMARY_REASON)[keyof typeof SUMMARY_REASON];

export const REASON_GUIDE: Readonly<Record<Reason | SummaryReason, ReasonGuide>> = {
  Resolved: {
    on: '`Resolved=True`',
    cause: "a plan is resolved for the runtime's current inputs",
    fix: 'nothing to do',
  },
  Resolving: {
    on: '`Resolved=False`',
    cause:
      'discovery, recipe or render is running for the current generation; also shown while the registry, ' +
      "or a chart repository a component's chart is copied from, is unreachable for the control plane's own " +
      'traffic (`[SERVICE_UNAVAILABLE] …`)',
    fix: 'nothing; if it lasts, read the message ([Resolving for a long time](#resolving-for-a-long-time))',
  },
  InvalidSpec: {
    on: '`Resolved=False`',
    cause: 'the stored spec no longer passes the schema',
    fix:
      '`kubectl edit clusterruntime cluster` and correct the field the message names ' +
      '([entry](#stalled-with-invalidspec))',
  },
  InvalidConfiguration: {
    on: '`Resolved=False`',
    cause:
      'the configuration ConfigMap `aicr-system/aicr-config` is missing, is not YAML, ' +
      'or has a misspelt or invalid key (the message names it and the key meant), ' +
      "or in `aws` mode its `registry.repository` lies outside the deployment's `registryPrefix`",
    fix:
      "correct the chart's values and upgrade the release (or deploy with `--param=registryPrefix=<prefix>`); " +
      'resolution resumes by itself ([entry](#stalled-with-invalidconfiguration))',
  },
  AICRVersionMismatch: {
    on: '`Resolved=False`',
    cause:
      "`spec.aicrVersion` is not the AICR release the control plane's pinned images run; nothing is written to Argo CD",
    fix:
      'set `spec.aicrVersion` to the release the control plane runs, or deploy a control plane pinned to the ' +
      'requested one ([entry](#stalled-with-aicrversionmismatch))',
  },
  AICRStageStalled: {
    on: '`Resolved=False` (recipe, render) or `Released=False` (the assessment)',
    cause: 'one AICR stage failed three runs for the same inputs and is not run again for them',
    fix:
      "fix what the Job's log shows, then request a snapshot or delete the failed Jobs " +
      '([entry](#stalled-with-aicrstagestalled))',
  },
  Unauthorized: {
    on: '`Resolved=False`',
    cause: "the registry answered 401 or 403 to the control plane's own push or pull",
    fix:
      "fix the identity's registry policy or the repository prefix, " +
      'then request a snapshot ([entry](#registry-and-credentials))',
  },
  RegistryCredentialsUnavailable: {
    on: '`Resolved=False`',
    cause:
      'no registry credentials: an ECR token could not be minted (aws), or the static docker-config Secret is ' +
      'missing or unreadable in `aicr-system`',
    fix:
      'fix the AWS identity, or recreate the Secret; resolution resumes by itself ' +
      '([entry](#registry-and-credentials))',
  },
  BundleUnreadable: {
    on: '`Resolved=False`',
    cause:
      "the bundle a render run pushed is gone from the registry, or its `recipe.yaml` or a component's " +
      '`values.yaml` does not parse into releases',
    fix:
      'request a snapshot so the bundle is rendered again; if it recurs, see the message for the file ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  ChartUnavailable: {
    on: '`Resolved=False`',
    cause:
      "the chart repository AICR's recipe names for a component has no such chart at the recipe's version (or " +
      'serves something else under that name), so it cannot be copied into the registry; no plan is written',
    fix:
      'make the version available there or choose inputs whose recipe names one it has, ' +
      'then request a snapshot ([entry](#stalled-with-chartunavailable))',
  },
  NamespaceNotAllowed: {
    on: '`Resolved=False`',
    cause:
      "a release of the new plan, or one of its raw manifests, names a namespace the chart's `argocd.namespaces` " +
      'does not list; no plan is written and the previous target stays',
    fix:
      'add the namespace to `argocd.namespaces` with `helm upgrade` if the recipe should deploy there ' +
      '([entry](#stalled-with-namespacenotallowed))',
  },
  PlanTooLarge: {
    on: '`Resolved=False`',
    cause: 'the plan would hold more than 900 KiB even gzipped; nothing was written and the previous target stays',
    fix:
      'reduce the values the component overrides add, or disable components not needed ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  PlanUnreadable: {
    on:
      '`Resolved=False` (a plan resolution reads), `InventoryConsistent=False` (the active plan, ' +
      'or newer objects) or `Released=False` (newer rollouts, or while it blocks an Orphan deletion)',
    cause:
      'a plan ConfigMap, or objects written by a newer control plane, cannot be read (a downgrade or a ' +
      'restore); nothing is written to Argo CD',
    fix:
      'upgrade the control plane again, or delete the inconsistent plan ConfigMap ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  PlanOfAnotherRuntime: {
    on: '`Resolved=False`',
    cause: 'the target plan was resolved for an earlier runtime with the same name',
    fix:
      'pin a plan this runtime resolved, or set `spec.selection.mode: Automatic` ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  NotFound: {
    on: '`Resolved=False`',
    cause: '`spec.selection` pins a plan that retention has removed',
    fix: 'pin a plan that exists, or return to `Automatic` ([entry](#plans-that-cannot-be-used))',
  },
  OrphanedObjectsPresent: {
    on: '`Released=False`',
    cause: 'Argo CD Applications carry the UID of another runtime',
    fix: 'adopt them with `spec.adoption.runtimeUID`, or delete them ([entry](#orphaned-or-unadoptable-applications))',
  },
  AdoptionBlocked: {
    on: '`Released=False`',
    cause: 'the Applications named for adoption do not rebuild into a plan',
    fix: 'undo the change to the object the message names ([entry](#orphaned-or-unadoptable-applications))',
  },
  DiscoveryFailed: {
    on: '`Resolved=False`',
    cause:
      "AICR's snapshot agent Job in `aicr-discovery` failed three runs for the same inputs (the message names " +
      'the last Job, its exit code and error line)',
    fix: "fix what the Job's log shows, then request a snapshot ([entry](#stalled-with-a-discovery-reason))",
  },
  NoGPUNodes: {
    on: '`Resolved=False`',
    cause: 'no node group has GPUs, so the snapshot agent has nowhere to run',
    fix: 'add a GPU node group; discovery runs again when its Nodes appear ([entry](#stalled-with-a-discovery-reason))',
  },
  NodeGroupMismatch: {
    on: '`Resolved=False`',
    cause:
      "a GPU Node's labels disagree with its capacity (GPU count label versus `nvidia.com/gpu`, " +
      'or GPUs without a product label)',
    fix:
      'fix the device plugin or GPU feature discovery on the Node the message names; discovery runs again when ' +
      'the Node changes ([entry](#stalled-with-a-discovery-reason))',
  },
  SnapshotUnreadable: {
    on: '`Resolved=False`',
    cause:
      'the snapshot ConfigMap named in `status.discovery.snapshot.configMap` is missing, corrupted, ' +
      'or of a snapshot schema this control plane does not read',
    fix:
      'nothing for a deleted or corrupted copy: a fresh snapshot replaces it; for a schema, ' +
      'set `spec.aicrVersion` to a version the control plane runs ([entry](#stalled-with-a-discovery-reason))',
  },
  EngineReady: {
    on: '`EngineAvailable=True`',
    cause: "Argo CD's Application API is served and (self-managed) its application controller has a ready replica",
    fix: 'nothing to do',
  },
  EngineUnavailable: {
    on: '`EngineAvailable=False`',
    cause:
      "Argo CD's Application API is not served, or its application controller has no ready replica; " +
      'nothing is written to Argo CD meanwhile',
    fix: "bring Argo CD's controller or CRDs back ([entry](#stalled-with-engineunavailable))",
  },
  RegistryCredentialsStale: {
    on: '`EngineAvailable=False`',
    cause:
      "aws mode with a self-managed Argo CD only: Argo CD's repository Secret `argocd/aicr-registry` is " +
      'missing, records no expiry, or its token expires within the hour; no new rollout or rollout step starts',
    fix:
      "fix the token-refresh step's AWS identity; its next attempt, within 5 minutes, replaces the token, " +
      'or run `kubectl aicr refresh-credentials` ([entry](#registry-and-credentials))',
  },
  EngineSuspended: {
    on: '`EngineAvailable=False`',
    cause:
      '`spec.suspendEngine` is true: the emergency stop turned automated sync off on every owned Application; ' +
      'no rollout step writes to Argo CD',
    fix:
      'set `spec.suspendEngine: false` once it is safe; automated sync comes back as the plans say ' +
      '([entry](#the-engine-is-suspended-emergency-stop))',
  },
  EngineSuspensionRefused: {
    on: '`EngineAvailable=False`',
    cause:
      'the API server refused for good to switch automated sync off (or back on) for `spec.suspendEngine` on ' +
      'the Application the message names; no rollout step starts, and an approval meanwhile is refused',
    fix:
      'undo the outside edit, or the admission policy, ' +
      'that refuses the write ([entry](#the-engine-is-suspended-emergency-stop))',
  },
  InventoryConsistent: {
    on: '`InventoryConsistent=True`',
    cause:
      "between rollouts the active plan's ConfigMap is there (or was rebuilt, `PlanRebuilt` Event) and every " +
      'owned Application it names exists (or was written again, `ApplicationRecreated` Event); ' +
      'also while a rollout is in progress, which compares the Applications itself',
    fix: 'nothing to do ([drift](drift.md))',
  },
  ...RELEASED_GUIDE,
  ...ANY_STEP_GUIDE,
  Ready: {
    on: '`Ready=True`',
    cause: 'every domain condition a step writes is True for the current generation',
    fix: 'nothing to do',
  },
  NotStalled: {
    on: '`Stalled=False`',
    cause: 'no domain condition is stalled',
    fix: 'nothing to do',
  },
  Idle: {
    on: '`Reconciling=False`',
    cause: 'nothing is in flight: every domain condition is True',
    fix: 'nothing to do',
  },
  AwaitingFirstReport: {
    on: '`Ready=False`, `Reconciling=True`',
    cause: 'a step that owns a domain condition has not reported yet',
    fix: 'nothing; if it lasts, see [no status at all](#the-runtime-has-no-status-at-all)',
  },
  NewGeneration: {
    on: '`Ready=False`, `Reconciling=True`',
    cause: 'a domain condition describes an older generation than the spec',
    fix: 'nothing; if it lasts, see [when status does not explain it](#when-status-does-not-explain-it)',
  },
};

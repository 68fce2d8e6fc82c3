// The long messages of the reasons the Resolved condition carries: the words that tell a person
// what went wrong and what to run. They sit beside the guide's entries for the same reasons
// (reasonGuide.ts), so a fix reworded in one is seen next to the other; the code that raises a
// reason calls its function with the values the message names.
import { ANNOTATION, CONFIGURATION, LABEL, NAMESPACES } from '../api/constants.ts';

const CONFIGURATION_AT = `ConfigMap ${CONFIGURATION.namespace}/${CONFIGURATION.name}`;
const RENDERED_BY_CHART = 'install or upgrade the chart, which renders it from its values';

/** InvalidConfiguration: every message of the reason opens with the ConfigMap it is about. */
export function invalidConfiguration(why: string): string {
  return `configuration ${CONFIGURATION_AT}: ${why}`;
}

export function invalidConfigurationMissing(): string {
  return invalidConfiguration(`not found; ${RENDERED_BY_CHART}`);
}

export function invalidConfigurationNoKey(): string {
  return invalidConfiguration(`has no key ${CONFIGURATION.key}; ${RENDERED_BY_CHART}`);
}

/** The admission keys that are missing or disagree with the configuration document. */
export function invalidConfigurationAdmission(keys: readonly string[]): string {
  const one = keys.length === 1;
  return invalidConfiguration(
    `key${one ? '' : 's'} ${keys.join(', ')} ${one ? 'is' : 'are'} missing or ` +
      `disagree${one ? 's' : ''} with ${CONFIGURATION.key}; ` +
      "the chart's admission policies read them, so runs would be refused: " +
      'install or upgrade the chart, which renders both from its values',
  );
}

/** What the prefix check compares: the configured repository split, and the deployment's prefix. */
export interface OutsidePrefix {
  readonly repository: string;
  readonly host: string;
  /** The repository's path after the host; empty when it has none, which no prefix covers. */
  readonly path: string;
  readonly prefix: string;
  /** The deploy parameter that sets the prefix. */
  readonly parameter: string;
}

/** InvalidConfiguration in aws mode: registry.repository lies outside the roles' ECR rights. */
export function invalidConfigurationOutsidePrefix(o: OutsidePrefix): string {
  const { repository, host, prefix } = o;
  // With no path at all no prefix covers it, so only the values can be fixed.
  const redeploy = o.path === '' ? '' : `, or deploy with --param=${o.parameter}=${o.path}`;
  return (
    `configuration: registry.repository ${repository} is outside this deployment's registry prefix ${prefix}, ` +
    `and its roles may push and pull only under repository/${prefix}/*: ` +
    `set registry.repository to ${host}/${prefix} or below it (${host}/${prefix}/...) ` +
    `in the chart's values and upgrade the release${redeploy}; resolution resumes by itself`
  );
}

/** The refusal as the API server answered it. */
export interface Refusal {
  readonly status: number;
  readonly reason: string;
  readonly identity?: string | undefined;
}

/** APIRequestRefused on reading the configuration: the chart's Roles went with their namespace (ADO-5). */
export function apiRequestRefusedConfiguration(refusal: Refusal): string {
  const who = refusal.identity ? ` for ${refusal.identity}` : '';
  return (
    `configuration ${CONFIGURATION_AT} cannot be read (http ${refusal.status} ${refusal.reason}${who}): ` +
    `the chart's Roles in ${CONFIGURATION.namespace} are gone, ` +
    'as when the namespace was deleted with everything in it. ' +
    'Install the chart again (helm upgrade --install with --create-namespace), which recreates the namespace, ' +
    'its configuration and Roles; the active plan is then rebuilt from the Applications'
  );
}

/** One AICR stage's runs for one set of inputs: where its Jobs run, and the inputs' hash. */
export interface StageRuns {
  readonly stage: string;
  readonly namespace: string;
  readonly hash: string;
}

function deleteFailedJobs(runs: StageRuns): string {
  const selector = `${LABEL.stage}=${runs.stage},${LABEL.input}=${runs.hash}`;
  return `delete the failed Jobs to run it again: kubectl delete jobs -n ${runs.namespace} -l ${selector}`;
}

/** AICRStageStalled: the stage failed as often as it may for the same inputs. */
export function aicrStageStalled(runs: StageRuns, failed: { readonly count: number; readonly last: string }): string {
  return (
    `aicr ${runs.stage} failed ${failed.count} times for the same inputs and is not run again for them; ` +
    `last: ${failed.last}. Fix the cause, then request a snapshot or ${deleteFailedJobs(runs)}`
  );
}

/** Unauthorized: the registry refused a stage's push of what it made. */
export function unauthorizedStagePush(runs: StageRuns, failure: string): string {
  return (
    `the registry refused the push of ${failure}. Check the identity's registry policy and ` +
    `registry.repository, then request a snapshot or ${deleteFailedJobs(runs)}`
  );
}

/** Unauthorized: the registry refused the control plane's own pull or push while `doing` something. */
export function unauthorizedRegistry(doing: string, error: string, repository: string): string {
  return (
    `${doing}: ${error}. Check that the credentials may pull and push under the repository prefix ` +
    `registry.repository=${repository}, then request a snapshot`
  );
}

/** The chart a recipe names for a component, and where from. */
export interface RecipeChart {
  readonly chart: string;
  readonly version: string;
  readonly source: string;
}

/** ChartUnavailable: the chart repository has no such chart at the recipe's version. */
export function chartUnavailable(component: string, error: string, up: RecipeChart): string {
  return (
    `component ${component}: ${error}. ` +
    `The recipe names chart ${up.chart} at version ${up.version} from ${up.source}, ` +
    'and no plan is written until it is in the registry: make that version available there ' +
    '(or choose criteria, overrides or an aicrVersion whose recipe names one it has), then request a snapshot'
  );
}

/** AICRVersionMismatch: no image is pinned for the requested version; `runnable` is what is. */
export function aicrVersionMismatch(requested: string, runnable: readonly string[]): string {
  const may = runnable.length > 0 ? runnable.join(', ') : 'no version (aicr.versions is empty)';
  return (
    `spec.aicrVersion ${requested} has no pinned AICR image; this control plane may run ${may}. ` +
    `Set spec.aicrVersion to one of them, or pin an image for ${requested} in the chart's aicr.versions`
  );
}

/** PlanTooLarge: the plan's size, the limit, and the release whose values weigh most. */
export interface PlanSize {
  readonly plan: string;
  readonly kib: number;
  readonly limitKib: number;
  readonly largest: string;
  readonly largestKib: number;
}

export function planTooLarge(s: PlanSize): string {
  return (
    `plan ${s.plan} would take ${s.kib} KiB gzipped, over the ${s.limitKib} KiB a plan may hold; ` +
    `the largest Helm values are ${s.largest}'s (${s.largestKib} KiB). ` +
    'Reduce the values the overrides add, or disable components you do not need'
  );
}

const LIST_PLANS = `kubectl get configmaps -n ${NAMESPACES.system} -l ${LABEL.role}=plan -L ${LABEL.schemaVersion}`;
const PIN_ANOTHER = `pin a plan that exists (${LIST_PLANS}) or set spec.selection.mode: Automatic`;

/** NotFound: spec.selection pins a plan that is not there (PLAN-7). */
export function notFoundPinned(pin: string): string {
  return (
    `plan ${pin} is missing: spec.selection.plan pins it, but no such ConfigMap is in ${NAMESPACES.system} ` +
    `(retention may have removed it before the pin); ${PIN_ANOTHER}`
  );
}

/** NotFound: the pinned name is a ConfigMap, but not a plan. */
export function notFoundNotAPlan(pin: string): string {
  return `plan ${pin} is missing: ${NAMESPACES.system}/${pin} is a ConfigMap but not a plan; ${PIN_ANOTHER}`;
}

/** PlanUnreadable: the pinned plan does not read back. */
export function planUnreadablePinned(problem: string): string {
  return (
    `${problem}. spec.selection pins it; after a downgrade, upgrade the control plane again, ` +
    `or delete the ConfigMap and ${PIN_ANOTHER}`
  );
}

/** PlanUnreadable: the plan resolution recorded as the candidate does not read back. */
export function planUnreadableCandidate(problem: string): string {
  return (
    `${problem}. It is the candidate: after a downgrade, upgrade the control plane again; ` +
    'otherwise delete the ConfigMap and it is resolved again'
  );
}

/** PlanOfAnotherRuntime: the pinned plan was resolved for an earlier runtime of the same name (PLAN-5). */
export function planOfAnotherRuntime(pin: string, owner: string, runtime: string): string {
  return (
    `plan ${pin} was resolved for runtime ${owner}, not for this runtime ${runtime}, ` +
    'so its Applications would belong to that runtime; pin a plan this runtime resolved, ' +
    "or set spec.selection.mode: Automatic to follow this runtime's candidate"
  );
}

const RESNAPSHOT = `kubectl annotate clusterruntime cluster ${ANNOTATION.resnapshot}="$(date +%s)" --overwrite`;

/** DiscoveryFailed: the snapshot agent's runs failed; a person fixes the cause and asks again. */
export function discoveryFailed(cause: string): string {
  return `the snapshot of the cluster failed: ${cause}. After fixing the cause, request a snapshot: ${RESNAPSHOT}`;
}

/** NodeGroupMismatch: each problem names a Node whose labels disagree with its capacity. */
export function nodeGroupMismatch(problems: readonly string[]): string {
  return (
    `node groups disagree with their Nodes' capacity: ${problems.join('; ')}. ` +
    'Discovery runs again once the Nodes change'
  );
}

/** NoGPUNodes: `groups` names the node groups there are, or says none. */
export function noGPUNodes(groups: string): string {
  return (
    `no node group has GPUs (node groups: ${groups}), so AICR's snapshot agent has no GPU node to run on. ` +
    'Add a GPU node group (Nodes with nvidia.com/gpu capacity and GPU feature discovery labels); ' +
    'discovery runs again once it appears'
  );
}

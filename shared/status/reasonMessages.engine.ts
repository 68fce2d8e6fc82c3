// The long messages of the reasons the EngineAvailable condition carries (Argo CD down, the
// emergency stop, stale registry credentials), beside the guide's entries for them
// (reasonGuide.ts), so the steps a person is told to take are kept in one place.
import { ANNOTATION, ARGOCD, ARGOCD_REGISTRY_SECRET, NAMESPACES } from '../api/constants.ts';

/** EngineUnavailable: Argo CD's Application API (`api`, as resource.group/version) is not served. */
export function engineUnavailableNotServed(api: string): string {
  return (
    `Argo CD's Application API (${api}) is not served: ` +
    `install Argo CD, with its CRDs, in namespace ${NAMESPACES.argocd}`
  );
}

/** EngineUnavailable: no workload runs Argo CD's application controller. */
export function engineUnavailableNoController(): string {
  return (
    `no Argo CD application controller runs in namespace ${NAMESPACES.argocd} ` +
    `(no StatefulSet or Deployment labelled ${ARGOCD.controllerSelector}); install Argo CD there, ` +
    "or set argocd.mode to managed in the chart's values for the EKS Argo CD capability"
  );
}

/** EngineUnavailable: the controller's workloads, each described, have no ready replica. */
export function engineUnavailableControllerDown(workloads: readonly string[]): string {
  return (
    `Argo CD's application controller is down: ${workloads.join('; ')}. ` +
    'Nothing is written to Argo CD until it is back; the control plane looks again by itself'
  );
}

/** EngineSuspended: `off` owned Applications have automated sync switched off (ENG-2). */
export function engineSuspended(off: number): string {
  return (
    `spec.suspendEngine is true: automated sync is off on ${off} owned Application${off === 1 ? '' : 's'}, ` +
    'so Argo CD applies nothing by itself, and no rollout step writes to it. ' +
    'Set spec.suspendEngine to false to turn it back on as the plans say'
  );
}

/** The switch the API server refused for good, and on which Applications. */
export interface SuspensionRefused {
  /** Whether the switch was to suspend (turn automated sync off) or to resume. */
  readonly suspend: boolean;
  readonly apps: readonly string[];
  /** What the API server said, one per refused Application. */
  readonly refusals: readonly string[];
}

/** EngineSuspensionRefused: what the refusal keeps from happening, and how to clear it. */
export function engineSuspensionRefused(r: SuspensionRefused): string {
  const what = r.suspend
    ? 'off for spec.suspendEngine: during the emergency stop it keeps syncing'
    : 'back on after spec.suspendEngine: it stays without automated sync';
  return (
    `the API server refused for good to turn automated sync ${what}: ` +
    `Application ${r.apps.join(', ')} in ${NAMESPACES.argocd} (${r.refusals.join('; ')}). ` +
    'Undo the outside edit to it, or the admission policy that refuses it; ' +
    'this is tried again on every reconcile, and no rollout step starts until it succeeds'
  );
}

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;
const EXPIRY_PATH = `{.metadata.annotations.${ANNOTATION.tokenExpiresAt.replace(/\./g, '\\.')}}`;
const CHECK =
  `kubectl -n ${ARGOCD_REGISTRY_SECRET.namespace} get secret ${ARGOCD_REGISTRY_SECRET.name} ` +
  `-o jsonpath='${EXPIRY_PATH}'`;
const NO_START = 'so no rollout or rollout step starts';
const FIX =
  'the token-refresh step replaces it by itself once it can mint an ECR token ' +
  '(check its AWS identity allows ecr:GetAuthorizationToken), ' +
  `or at once with kubectl aicr refresh-credentials; check with: ${CHECK}`;

/** RegistryCredentialsStale: Argo CD's repository Secret is not there (REG-4). */
export function registryCredentialsMissing(): string {
  return `Argo CD's registry credentials (Secret ${SECRET}) are missing, ${NO_START}; ${FIX}`;
}

/** RegistryCredentialsStale: the Secret records no expiry, so its freshness is unknown. */
export function registryCredentialsNoExpiry(): string {
  return (
    `Argo CD's registry credentials (Secret ${SECRET}) record no token expiry ` +
    `(annotation ${ANNOTATION.tokenExpiresAt}), ${NO_START}; ${FIX}`
  );
}

/** When the token ends, and how close to now counts as stale. */
export interface TokenExpiry {
  readonly expired: boolean;
  /** The expiry as an ISO time. */
  readonly at: string;
  readonly withinMinutes: number;
}

/** RegistryCredentialsStale: the token has expired, or expires too soon for a rollout. */
export function registryCredentialsStale(e: TokenExpiry): string {
  const when = e.expired ? 'expired' : 'expires';
  return (
    `Argo CD's registry token (Secret ${SECRET}) ${when} at ${e.at}, within ${e.withinMinutes} minutes, ` +
    `${NO_START}; ${FIX}`
  );
}

// Whether Argo CD's registry token is fresh enough for a rollout to start (REG-4). Only in aws
// mode with a self-managed Argo CD does the control plane keep that token (the token-refresh
// step); a token expiring within the hour, or none, would let Argo CD fail its next chart fetch
// in the middle of a rollout, so nothing new starts until the token is replaced.
import { ANNOTATION, ARGOCD_REGISTRY_SECRET } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';

export interface Freshness {
  readonly now: Date;
  readonly staleWithinMs: number;
}

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;
const CHECK = `kubectl -n ${ARGOCD_REGISTRY_SECRET.namespace} get secret ${ARGOCD_REGISTRY_SECRET.name} -o jsonpath='{.metadata.annotations.${ANNOTATION.tokenExpiresAt.replace(/\./g, '\\.')}}'`;
const FIX = `the token-refresh step replaces it by itself once it can mint an ECR token (check its AWS identity allows ecr:GetAuthorizationToken), or at once with kubectl aicr refresh-credentials; check with: ${CHECK}`;

/** Why the registry credentials are stale, or undefined when they are fresh or not the control plane's to keep. */
export async function staleCredentials(
  kube: KubePort,
  configuration: Configuration,
  f: Freshness,
): Promise<string | undefined> {
  if (configuration.registry.auth.mode !== 'aws' || configuration.argocd.mode === 'managed') return undefined;
  const secret = await kube.get(KIND.secret, ARGOCD_REGISTRY_SECRET.name, ARGOCD_REGISTRY_SECRET.namespace);
  if (!secret)
    return `Argo CD's registry credentials (Secret ${SECRET}) are missing, so no rollout or rollout step starts; ${FIX}`;
  const recorded = secret.metadata.annotations?.[ANNOTATION.tokenExpiresAt];
  const expiresAt = Date.parse(recorded ?? '');
  if (Number.isNaN(expiresAt))
    return `Argo CD's registry credentials (Secret ${SECRET}) record no token expiry (annotation ${ANNOTATION.tokenExpiresAt}), so no rollout or rollout step starts; ${FIX}`;
  if (expiresAt - f.now.getTime() > f.staleWithinMs) return undefined;
  const when = expiresAt <= f.now.getTime() ? 'expired' : 'expires';
  return `Argo CD's registry token (Secret ${SECRET}) ${when} at ${new Date(expiresAt).toISOString()}, within ${Math.round(f.staleWithinMs / 60_000)} minutes, so no rollout or rollout step starts; ${FIX}`;
}

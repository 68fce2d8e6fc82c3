// Whether Argo CD's registry token is fresh enough for a rollout to start (REG-4). Only in aws
// mode with a self-managed Argo CD does the control plane keep that token (the token-refresh
// step); a token expiring within the hour, or none, would let Argo CD fail its next chart fetch
// in the middle of a rollout, so nothing new starts until the token is replaced.
import { ANNOTATION, ARGOCD_REGISTRY_SECRET } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import {
  registryCredentialsMissing,
  registryCredentialsNoExpiry,
  registryCredentialsStale,
} from '../../status/reasonMessages.engine.ts';

export interface Freshness {
  readonly now: Date;
  readonly staleWithinMs: number;
}

/** Why the registry credentials are stale, or undefined when they are fresh or not the control plane's to keep. */
export async function staleCredentials(
  kube: KubePort,
  configuration: Configuration,
  f: Freshness,
): Promise<string | undefined> {
  if (configuration.registry.auth.mode !== 'aws' || configuration.argocd.mode === 'managed') return undefined;
  const secret = await kube.get(KIND.secret, ARGOCD_REGISTRY_SECRET.name, ARGOCD_REGISTRY_SECRET.namespace);
  if (!secret) return registryCredentialsMissing();
  const recorded = secret.metadata.annotations?.[ANNOTATION.tokenExpiresAt];
  const expiresAt = Date.parse(recorded ?? '');
  if (Number.isNaN(expiresAt)) return registryCredentialsNoExpiry();
  if (expiresAt - f.now.getTime() > f.staleWithinMs) return undefined;
  return registryCredentialsStale({
    expired: expiresAt <= f.now.getTime(),
    at: new Date(expiresAt).toISOString(),
    withinMinutes: Math.round(f.staleWithinMs / 60_000),
  });
}

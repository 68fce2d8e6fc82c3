// Whether the token-refresh step writes Argo CD's registry credentials at all. Only in aws mode
// with a self-managed Argo CD: in static mode a person keeps them, and the EKS Argo CD capability
// pulls from ECR with its own role, where a static token written beside it would win Argo CD's
// credential match and then expire (so there nothing is created or overwritten).
import { ARGOCD_REGISTRY_SECRET } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';

export type Handling = { readonly writes: true } | { readonly writes: false; readonly why: string };

/** What EKS says about an Argo CD capability on the cluster, where the step could ask it. */
export type Capability = 'present' | 'absent' | 'unknown';

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;

export function credentialsHandling(configuration: Configuration, capability: Capability = 'unknown'): Handling {
  if (configuration.registry.auth.mode !== 'aws') {
    return {
      writes: false,
      why:
        `registry.auth.mode ${configuration.registry.auth.mode}: Argo CD's registry credentials are kept by a ` +
        `person; the control plane writes no Secret ${SECRET}`,
    };
  }
  if (configuration.argocd.mode === 'managed' || capability === 'present') {
    return {
      writes: false,
      why:
        'Argo CD is the EKS capability, which pulls from ECR with its own role: registry credentials are handled ' +
        `by AWS, and the control plane creates or overwrites no Secret ${SECRET}`,
    };
  }
  return { writes: true };
}

// What the token-refresh step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { API_GROUP, ARGOCD_REGISTRY_SECRET } from '../../api/constants.ts';
import type { KubeRule } from '../../api/kubeRule.ts';

/** `verbs` on Argo CD's registry Secret alone, by name and in its namespace. */
function onTheRegistrySecret(verbs: readonly string[], why: string): KubeRule {
  return {
    apiGroups: [''],
    resources: ['secrets'],
    verbs,
    namespace: ARGOCD_REGISTRY_SECRET.namespace,
    resourceNames: [ARGOCD_REGISTRY_SECRET.name],
    why,
  };
}

/**
 * The steps that write Applications read when the token this step keeps in that Secret expires
 * (aws mode), and nothing else of it; `purpose` says what each does with it.
 */
export function readsWhenTheRegistryTokenExpires(purpose: string): KubeRule {
  return onTheRegistrySecret(['get'], `reads when Argo CD's registry token expires (aws mode), ${purpose}`);
}

export const TOKEN_REFRESH_RBAC = [
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes'],
    verbs: ['get'],
    why: 'reads the runtime it was sent, and the refresh a person asked for on it',
  },
  // A server-side apply that creates the Secret is authorized as create with its name, so all
  // three verbs hold to the one name.
  onTheRegistrySecret(
    ['get', 'create', 'patch'],
    "reads and writes Argo CD's registry credentials, and no other Secret",
  ),
] as const satisfies readonly KubeRule[];

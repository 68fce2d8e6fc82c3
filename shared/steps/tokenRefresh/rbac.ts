// What the token-refresh step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { API_GROUP, ARGOCD_REGISTRY_SECRET } from '../../api/constants.ts';
import type { KubeRule } from '../../api/kubeRule.ts';

export const TOKEN_REFRESH_RBAC = [
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes'],
    verbs: ['get'],
    why: 'reads the runtime it was sent, and the refresh a person asked for on it',
  },
  // A server-side apply that creates the Secret is authorized as create with its name, so all three verbs hold to the one name.
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get', 'create', 'patch'],
    namespace: ARGOCD_REGISTRY_SECRET.namespace,
    resourceNames: [ARGOCD_REGISTRY_SECRET.name],
    why: "reads and writes Argo CD's registry credentials, and no other Secret",
  },
] as const satisfies readonly KubeRule[];

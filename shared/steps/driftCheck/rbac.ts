// What the drift-check step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { API_GROUP, KINDS, NAMESPACES } from '../../api/constants.ts';
import { type KubeRule, runtimeRules } from '../../api/kubeRule.ts';
import { readsWhenTheRegistryTokenExpires } from '../tokenRefresh/rbac.ts';

export const DRIFT_CHECK_RBAC = [
  ...runtimeRules('InventoryConsistent and the summary conditions'),
  {
    apiGroups: [API_GROUP],
    resources: [KINDS.runtimeRollout.plural],
    verbs: ['list'],
    why:
      'reads whether a rollout is in progress, which releases an ' +
      'unsuccessful one moved, and which schema each was written in',
  },
  // A server-side apply that creates a plan is authorized as create; the plan admission policy lets
  // this group create plans and change none.
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create'],
    namespace: NAMESPACES.system,
    why:
      'reads the active and target plans, and writes back an ' +
      'active plan rebuilt from the Applications to its own digest',
  },
  {
    apiGroups: ['argoproj.io'],
    resources: ['applications'],
    verbs: ['list', 'create', 'patch'],
    why:
      'reads the owned Applications and writes a deleted one again from the ' +
      'active plan (cluster-wide, for the same reason as the rollout step)',
  },
  {
    apiGroups: ['apps'],
    resources: ['statefulsets', 'deployments'],
    verbs: ['list'],
    why: "reads whether Argo CD's application controller is up before writing an Application again",
  },
  readsWhenTheRegistryTokenExpires('as the rollout step does before it writes'),
] as const satisfies readonly KubeRule[];

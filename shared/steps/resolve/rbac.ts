// What the resolve step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { NAMESPACES, REGISTRY_JOB_SECRET, STATIC_SECRET_VALUE } from '../../api/constants.ts';
import { type KubeRule, runtimeRules } from '../../api/kubeRule.ts';

/**
 * get on the registry Secret a person names in the chart's values, in aicr-system, and on no other
 * Secret there: this step pulls with it, and the rollout step reads it too; `purpose` says what for.
 */
export function readsTheRegistryCredentials(purpose: string): KubeRule {
  return {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get'],
    namespace: NAMESPACES.system,
    resourceNamesFromValues: [STATIC_SECRET_VALUE],
    why: `reads the registry credentials (registry.auth.staticSecretRef) ${purpose}`,
  };
}

export const RESOLVE_RBAC = [
  ...runtimeRules('Resolved and the summary conditions'),
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.jobs,
    why: 'runs AICR recipe and render stages as Jobs and records how failed runs count',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    namespace: NAMESPACES.jobs,
    why: 'reads why a run waits and how it ended',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.jobs,
    why:
      'collects recipe output, gives a recipe run its snapshot, records ' +
      'what a render pushed, and removes outputs of changed inputs',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
    namespace: NAMESPACES.system,
    why:
      'reads the latest snapshot named in status.discovery, and writes, ' +
      'replaces, reads and retires plans (names carry their digest)',
  },
  readsTheRegistryCredentials('to pull the bundle a render pushed, and no other Secret there'),
  // A server-side apply that creates the Secret is authorized as create with its name, so the verbs hold to the names.
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get', 'create', 'patch'],
    namespace: NAMESPACES.jobs,
    resourceNames: [REGISTRY_JOB_SECRET],
    resourceNamesFromValues: [STATIC_SECRET_VALUE],
    why:
      'checks the render Jobs have the static registry Secret, and in aws mode ' +
      'writes them a docker config with a minted ECR token; no other Secret there',
  },
  {
    apiGroups: [''],
    resources: ['secrets'],
    verbs: ['get'],
    namespace: NAMESPACES.validation,
    resourceNamesFromValues: [STATIC_SECRET_VALUE],
    why: 'checks the validation Jobs have the static registry Secret, to name the namespace when they do not',
  },
] as const satisfies readonly KubeRule[];

// What the snapshot step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { NAMESPACES } from '../../api/constants.ts';
import { type KubeRule, runtimeRules } from '../../api/kubeRule.ts';

export const SNAPSHOT_RBAC = [
  ...runtimeRules('status.discovery'),
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'], why: 'reads the node groups from the Nodes' },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'delete'],
    namespace: NAMESPACES.system,
    why: 'publishes the latest snapshot and removes earlier ones',
  },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.discovery,
    why: "runs AICR's snapshot agent as a Job and records how failed runs count",
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    namespace: NAMESPACES.discovery,
    why: 'reads why a run waits and how it ended',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'delete'],
    namespace: NAMESPACES.discovery,
    why: "reads the agent's output and removes it once copied",
  },
] as const satisfies readonly KubeRule[];

// What the notify step's own Kubernetes identity may do; the chart's RBAC is generated from it.
import { API_GROUP, KINDS } from '../../api/constants.ts';
import type { KubeRule } from '../../api/kubeRule.ts';

export const NOTIFY_RBAC = [
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes'],
    verbs: ['get'],
    why: 'reads the runtime it was sent and its conditions',
  },
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes/status'],
    verbs: ['patch'],
    why: 'applies status.notifications, the record of what was told',
  },
  {
    apiGroups: [API_GROUP],
    resources: [KINDS.runtimeRollout.plural],
    verbs: ['list'],
    why: 'reads the newest rollout: what awaits approval, how it ended, what it waits for',
  },
] as const satisfies readonly KubeRule[];

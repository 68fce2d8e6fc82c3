// The identities AICR's own Jobs run as. In aicr-jobs: `aicr recipe -o cm://…` writes its output
// with a server-side apply and `aicr bundle -r cm://…` reads it back; nothing else is allowed.
import { AICR_RUNNER_SERVICE_ACCOUNT, AICR_SNAPSHOT_SERVICE_ACCOUNT, NAMESPACES } from '../api/constants.ts';
import type { Identity } from './render.ts';

export const AICR_RUNNER_IDENTITY: Identity = {
  name: AICR_RUNNER_SERVICE_ACCOUNT,
  serviceAccount: { namespace: NAMESPACES.jobs, name: AICR_RUNNER_SERVICE_ACCOUNT },
  rules: [
    {
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'create', 'patch'],
      namespace: NAMESPACES.jobs,
      why: 'AICR writes a recipe run’s output ConfigMap and the render run reads it',
    },
  ],
};

// AICR's snapshot agent in aicr-discovery: the read-only rules AICR's own agent ClusterRole
// holds (without --discover-network), and writing its output ConfigMap in its own namespace.
export const AICR_SNAPSHOT_IDENTITY: Identity = {
  name: AICR_SNAPSHOT_SERVICE_ACCOUNT,
  serviceAccount: { namespace: NAMESPACES.discovery, name: AICR_SNAPSHOT_SERVICE_ACCOUNT },
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'patch'], namespace: NAMESPACES.discovery, why: 'the agent writes its snapshot to a ConfigMap in aicr-discovery' },
    { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list'], why: 'the agent reads the Nodes and the Pods running on them' },
    { apiGroups: ['nvidia.com'], resources: ['clusterpolicies'], verbs: ['get', 'list'], why: "the agent reads the GPU operator's ClusterPolicy, if there is one" },
  ],
};

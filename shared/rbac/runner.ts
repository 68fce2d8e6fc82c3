// The identities AICR's own Jobs run as. In aicr-jobs: `aicr recipe -o cm://…` writes its output
// with a server-side apply and `aicr bundle -r cm://…` reads it back; nothing else is allowed.
import {
  AICR_RUNNER_SERVICE_ACCOUNT,
  AICR_SNAPSHOT_SERVICE_ACCOUNT,
  AICR_VALIDATE_SERVICE_ACCOUNT,
  AICR_VALIDATOR_IDENTITY,
  NAMESPACES,
} from '../api/constants.ts';
import type { KubeRule } from '../api/kubeRule.ts';
import type { Identity } from './identity.ts';

/** An AICR Job's identity: the ServiceAccount it runs as in `namespace`, which names the identity too. */
function jobIdentity(name: string, namespace: string, rules: readonly KubeRule[]): Identity {
  return { name, serviceAccount: { namespace, name }, rules };
}

export const AICR_RUNNER_IDENTITY = jobIdentity(AICR_RUNNER_SERVICE_ACCOUNT, NAMESPACES.jobs, [
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'create', 'patch'],
    namespace: NAMESPACES.jobs,
    why: 'AICR writes a recipe run’s output ConfigMap and the render run reads it',
  },
]);

// AICR's snapshot agent in aicr-discovery: the read-only rules AICR's own agent ClusterRole
// holds (without --discover-network), and writing its output ConfigMap in its own namespace.
export const AICR_SNAPSHOT_IDENTITY = jobIdentity(AICR_SNAPSHOT_SERVICE_ACCOUNT, NAMESPACES.discovery, [
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'create', 'update', 'patch'],
    namespace: NAMESPACES.discovery,
    why: 'the agent writes its snapshot to a ConfigMap in aicr-discovery',
  },
  {
    apiGroups: [''],
    resources: ['nodes', 'pods'],
    verbs: ['get', 'list'],
    why: 'the agent reads the Nodes and the Pods running on them',
  },
  {
    apiGroups: ['nvidia.com'],
    resources: ['clusterpolicies'],
    verbs: ['get', 'list'],
    why: "the agent reads the GPU operator's ClusterPolicy, if there is one",
  },
]);

// `aicr validate` in aicr-validation (docs/security.md). AICR v0.11.1 gives its validator Pods
// ServiceAccount aicr-validator, bound to cluster-admin by ClusterRoleBinding aicr-validator, and
// removes both when the run ends. Binding a role needs either its permissions or `bind` on it:
// this identity holds `bind` on cluster-admin alone, and may write that one binding and that one
// ServiceAccount by name. Creating a namespace cannot be limited to a name in RBAC; AICR always
// tries to create aicr-validation first (it exists, so the request ends AlreadyExists).
export const AICR_VALIDATE_IDENTITY = jobIdentity(AICR_VALIDATE_SERVICE_ACCOUNT, NAMESPACES.validation, [
  {
    apiGroups: [''],
    resources: ['namespaces'],
    verbs: ['create'],
    why: 'AICR creates aicr-validation if it is missing (it is not: the chart made it)',
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['clusterroles'],
    verbs: ['bind'],
    resourceNames: ['cluster-admin'],
    why: "AICR binds cluster-admin to its validators' ServiceAccount; bind on that one role, not its permissions",
  },
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['clusterrolebindings'],
    verbs: ['get', 'patch', 'delete'],
    resourceNames: [AICR_VALIDATOR_IDENTITY],
    why: 'AICR applies the binding for its validators and deletes it when the run ends',
  },
  // An apply that creates is authorized as create, which RBAC cannot hold to a name; the chart's admission policy does.
  {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['clusterrolebindings'],
    verbs: ['create'],
    why:
      'AICR’s apply creates that binding when it is missing (the ' +
      'admission policy holds it to that one binding of cluster-admin)',
  },
  {
    apiGroups: [''],
    resources: ['serviceaccounts'],
    verbs: ['get', 'patch', 'delete'],
    namespace: NAMESPACES.validation,
    resourceNames: [AICR_VALIDATOR_IDENTITY],
    why: "AICR applies its validators' ServiceAccount and deletes it when the run ends",
  },
  {
    apiGroups: [''],
    resources: ['serviceaccounts'],
    verbs: ['create'],
    namespace: NAMESPACES.validation,
    why: "AICR's apply creates that ServiceAccount when it is missing (in aicr-validation only)",
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
    namespace: NAMESPACES.validation,
    why: 'AICR reads the recipe and snapshot, writes its validators’ data ConfigMaps and its CTRF report',
  },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.validation,
    why: 'AICR runs each check as a validator Job and removes it',
  },
  {
    apiGroups: [''],
    resources: ['pods', 'pods/log'],
    verbs: ['get', 'list', 'watch'],
    namespace: NAMESPACES.validation,
    why: 'AICR follows its validator Pods and reads their output and termination messages',
  },
]);

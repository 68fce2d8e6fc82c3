// Where releases may put their objects (argocd.namespaces): the AppProject's destinations, the
// admission rule on the control plane's Application writes, and resolution's refusal of a plan
// that names another namespace all read this one list, so the three never disagree. An entry is
// a namespace name, or a prefix ending in `*` (Argo CD reads it as a glob, the admission rule
// and resolution as "starts with").
import type { PatternRule } from './fields.ts';

/** One entry of argocd.namespaces. */
export const NAMESPACE_ENTRY: PatternRule = {
  pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$|^[a-z0-9][-a-z0-9]*[*]$/,
  maxLength: 63,
  message: "must be a namespace name, or a prefix of one ending in '*' (such as team-*)",
};

/**
 * The namespaces the releases of AICR v0.11.1's recipes use: each component's own namespace
 * (recipes/registry.yaml); kube-system, where the EFA and EBS CSI drivers live and where
 * cert-manager, the Prometheus stack and prometheus-adapter put leader-election roles, exporter
 * Services and a RoleBinding; and kai-resource-reservation, which KAI scheduler's chart creates
 * for its reservation Pods. A recipe of a later AICR that names another
 * is refused at resolution until the operator adds it.
 */
export const DEFAULT_RELEASE_NAMESPACES = [
  'cert-manager',
  'dynamo-system',
  'gpu-operator',
  'kai-resource-reservation',
  'kai-scheduler',
  'kgateway-system',
  'kube-system',
  'kubeflow',
  'monitoring',
  'nvidia-dra-driver',
  'nvidia-network-operator',
  'nvsentinel',
  'skyhook',
] as const;

/** The chart's default argocd.clusterResources (infra/chart/values.yaml says why each is there). */
export const DEFAULT_CLUSTER_RESOURCES: readonly { readonly group: string; readonly kind: string }[] = [
  { group: '', kind: 'Namespace' },
  { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
  { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
  { group: 'admissionregistration.k8s.io', kind: 'MutatingWebhookConfiguration' },
  { group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration' },
  { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicy' },
  { group: 'admissionregistration.k8s.io', kind: 'ValidatingAdmissionPolicyBinding' },
  { group: 'apiregistration.k8s.io', kind: 'APIService' },
  { group: 'scheduling.k8s.io', kind: 'PriorityClass' },
  { group: 'storage.k8s.io', kind: 'CSIDriver' },
  { group: 'resource.k8s.io', kind: 'DeviceClass' },
  { group: 'nvidia.com', kind: 'ClusterPolicy' },
  { group: 'nfd.k8s-sigs.io', kind: 'NodeFeatureRule' },
  { group: 'scheduling.run.ai', kind: 'Queue' },
  { group: 'kai.scheduler', kind: 'SchedulingShard' },
  { group: 'kai.scheduler', kind: 'Config' },
  { group: 'skyhook.nvidia.com', kind: 'Skyhook' },
  { group: 'gateway.networking.k8s.io', kind: 'GatewayClass' },
  { group: 'trainer.kubeflow.org', kind: 'ClusterTrainingRuntime' },
];

/** Whether `namespace` is one `allowed` names, exactly or by a `prefix*` entry. */
export function namespaceAllowed(namespace: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) =>
    entry.endsWith('*') ? namespace.startsWith(entry.slice(0, -1)) : namespace === entry,
  );
}

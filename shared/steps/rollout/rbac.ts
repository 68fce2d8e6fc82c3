// What the rollout step's own Kubernetes identity may do beyond what its row's flags imply
// (shared/rbac/stepRules.ts adds those); the chart's RBAC is generated from both.
import { AICR_VALIDATE_SERVICE_ACCOUNT, API_GROUP, KINDS, NAMESPACES } from '../../api/constants.ts';
import type { KubeRule } from '../../api/kubeRule.ts';
import { readsTheRegistryCredentials } from '../resolve/rbac.ts';
import { readsWhenTheRegistryTokenExpires } from '../tokenRefresh/rbac.ts';

export const ROLLOUT_RBAC = [
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes'],
    verbs: ['get', 'patch'],
    why: 'reads the runtime it was sent, and adds and removes its cleanup finalizer (metadata.finalizers only)',
  },
  {
    apiGroups: [API_GROUP],
    resources: ['clusterruntimes/status'],
    verbs: ['patch'],
    why: 'applies Released, status.activePlan and the summary conditions',
  },
  {
    apiGroups: [API_GROUP],
    resources: [KINDS.runtimeRollout.plural],
    verbs: ['get', 'list', 'create', 'delete'],
    why: "reads and creates rollouts, never changes one's spec (SEC-7); retires ended ones past rollouts.keep (SEC-11)",
  },
  {
    apiGroups: [API_GROUP],
    resources: [`${KINDS.runtimeRollout.plural}/status`],
    verbs: ['patch'],
    why: "applies each rollout's conditions, verdict on its approval and outcome",
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get'],
    namespace: NAMESPACES.system,
    why: 'reads the active and target plans',
  },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.jobs,
    why: 'runs aicr upgrade-check as an assessment Job and records how failed runs count',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    namespace: NAMESPACES.jobs,
    why: 'reads why an assessment run waits and how it ended',
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.jobs,
    why: "gives an assessment run the two plans' recipes, collects its verdicts, and removes those of changed inputs",
  },
  {
    apiGroups: [''],
    resources: ['namespaces'],
    verbs: ['get'],
    resourceNames: [NAMESPACES.validation],
    why: 'reads whether deployment validation is installed: its namespace',
  },
  {
    apiGroups: [''],
    resources: ['serviceaccounts'],
    verbs: ['get'],
    namespace: NAMESPACES.validation,
    resourceNames: [AICR_VALIDATE_SERVICE_ACCOUNT],
    why: 'reads whether deployment validation is installed: the identity aicr validate runs as',
  },
  {
    apiGroups: ['batch'],
    resources: ['jobs'],
    verbs: ['list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.validation,
    why:
      'runs aicr validate as a Job, records how failed runs count, ' +
      "and deletes AICR's validator Jobs that break the image pins",
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    namespace: NAMESPACES.validation,
    why: "reads why a validation run waits and how it ended, and the images AICR's validator Pods run",
  },
  {
    apiGroups: [''],
    resources: ['configmaps'],
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
    namespace: NAMESPACES.validation,
    why:
      "gives a validation run the plan's recipe and the snapshot, " +
      'reads its CTRF report, and removes those of earlier rollouts',
  },
  {
    apiGroups: ['argoproj.io'],
    resources: ['applications'],
    verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    why:
      'reads the owned Applications a rollout is assessed against, and writes, finalizes and deletes them ' +
      "release by release (cluster-wide: a Role would need Argo CD's namespace to exist when the chart installs)",
  },
  {
    apiGroups: [''],
    resources: ['nodes'],
    verbs: ['list'],
    why: 'finds the GPU Nodes (nvidia.com/gpu.present=true) a disruptive release affects (spec.workloads, GPU-1)',
  },
  {
    apiGroups: [''],
    resources: ['pods'],
    verbs: ['list'],
    why:
      'reads which protected Pods run on GPU Nodes before a step of a disruptive ' +
      'release (spec.workloads, GPU-1); it never evicts or changes them',
  },
  {
    apiGroups: ['apps'],
    resources: ['statefulsets', 'deployments'],
    verbs: ['list'],
    why: "reads whether Argo CD's application controller is up (cluster-wide, for the same reason as Applications)",
  },
  readsTheRegistryCredentials(
    'to check, before a step writes a release, that its charts are the bytes the plan pinned; no other Secret there',
  ),
  {
    apiGroups: ['argoproj.io'],
    resources: ['appprojects'],
    verbs: ['get'],
    namespace: NAMESPACES.argocd,
    resourceNamesFromValues: ['argocd.project'],
    why:
      "reads the sync windows of the Applications' AppProject (argocd.project), " +
      'so a step starts only when Argo CD would sync it (WIN-3); no other project',
  },
  readsWhenTheRegistryTokenExpires('to hold rollouts while it is stale'),
] as const satisfies readonly KubeRule[];

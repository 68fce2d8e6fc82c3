// An approved-rollout stage on the in-memory API for unit tests of the rollout step's control
// flow: the chart's configuration, one stored plan of one release, a ready Argo CD controller and
// a resolved runtime targeting that plan.
import { ARGOCD, CONFIGURATION, CONDITION, FINALIZER, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND, type RuntimeObject } from '../../shared/kube/kinds.ts';
import { createLogger } from '../../shared/observability/log.ts';
import { planDigest, planName } from '../../shared/plans/digest.ts';
import type { Release } from '../../shared/plans/release.ts';
import { planConfigMap } from '../../shared/plans/store.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { memoryKube } from './memoryKube.ts';
import { PIN_REGISTRY, chartDigest } from './pinRegistry.ts';
import { configurationData } from '../../harness/configurationData.ts';

export const UID = '11111111-1111-4111-8111-111111111111';
const REPO = `${PIN_REGISTRY}/aicr`;
const releaseOf = (name: string): Release => ({
  name,
  namespace: name,
  order: 0,
  chart: { repoURL: REPO, chart: name, version: '1.0.0', digest: chartDigest(name, '1.0.0') },
  values: {},
  dependsOn: [],
  manual: false,
  steps: [],
});
const planOf = (name: string) => {
  const release = releaseOf(name);
  return { digest: planDigest([release]), releases: [release], runtimeUID: UID, recipe: 'kind: RecipeResult\n' };
};
/** The name of the stored plan of one release, `gpu-operator` unless named. */
export const targetOf = (name = 'gpu-operator'): string => planName(planOf(name).digest);
export const TARGET = targetOf();

export function cluster(releaseName = 'gpu-operator'): ReturnType<typeof memoryKube> {
  const kube = memoryKube();
  const configuration = {
    aicr: { digests: 'Optional', versions: { 'v0.11.1': 'ghcr.io/nvidia/aicr:v0.11.1' } },
    registry: { repository: REPO, plainHTTP: true, auth: { mode: 'static', staticSecretRef: 'aicr-registry-auth' } },
  };
  kube.put(KIND.secret, {
    metadata: { name: 'aicr-registry-auth', namespace: NAMESPACES.system },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: {} })).toString('base64') },
  });
  kube.put(KIND.configMap, {
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
    data: configurationData(configuration),
  });
  kube.put(KIND.configMap, planConfigMap(planOf(releaseName)) as unknown as Record<string, unknown>);
  const [k, v] = ARGOCD.controllerSelector.split(',').map((t) => t.split('=')) as [string[], string[]];
  const labels = Object.fromEntries([k, v].map(([a = '', b = '']) => [a, b]));
  kube.put(KIND.statefulSet, {
    metadata: { name: 'argocd-application-controller', namespace: NAMESPACES.argocd, labels, generation: 1 },
    spec: { replicas: 1 },
    status: { readyReplicas: 1, observedGeneration: 1 },
  });
  return kube;
}

export function runtime(spec: Record<string, unknown> = {}, target = TARGET): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'gpu', uid: UID, finalizers: [FINALIZER.cleanup], generation: 1, resourceVersion: '1' },
    spec: { aicrVersion: 'v0.11.1', ...spec },
    status: {
      targetPlan: target,
      conditions: [
        {
          type: CONDITION.resolved,
          status: 'True',
          reason: 'Resolved',
          message: 'resolved',
          lastTransitionTime: '2026-12-02T09:00:00Z',
        },
      ],
    },
  } as RuntimeObject;
}

export const ctxOf = (kube: ReturnType<typeof memoryKube>, rt: RuntimeObject, at = '2026-12-02T10:00:00Z') => ({
  kube,
  log: createLogger({ sink: () => undefined }),
  now: () => new Date(at),
  timings: DEFAULT_TIMINGS,
  item: { v: 1 as const, step: 'rollout', runtime: { name: 'gpu', uid: UID }, cause: 'MODIFIED', attempt: 1 },
  runtime: rt,
});

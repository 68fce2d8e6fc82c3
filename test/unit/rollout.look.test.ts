// One look of the rollout step reads each object once, on an in-memory API: however far the
// decision goes (here an approved rollout that reaches the validation gate), the configuration
// and the target plan are read once, and a look that changes nothing writes nothing.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ARGOCD, CONFIGURATION, CONDITION, FINALIZER, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND, type RuntimeObject } from '../../shared/kube/kinds.ts';
import { createLogger } from '../../shared/observability/log.ts';
import { planDigest, planName } from '../../shared/plans/digest.ts';
import type { Release } from '../../shared/plans/release.ts';
import { planConfigMap } from '../../shared/plans/store.ts';
import { runRollout } from '../../shared/steps/rollout/index.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { memoryKube } from '../helpers/memoryKube.ts';
import { configurationData } from '../helpers/configurationData.ts';

const UID = '11111111-1111-4111-8111-111111111111';
const REPO = 'registry.example:5000/aicr';
const release: Release = { name: 'gpu-operator', namespace: 'gpu-operator', order: 0, chart: { repoURL: REPO, chart: 'gpu-operator', version: '1.0.0' }, values: {}, dependsOn: [], manual: false, steps: [] };
const plan = { digest: planDigest([release]), releases: [release], runtimeUID: UID, recipe: 'kind: RecipeResult\n' };
const TARGET = planName(plan.digest);

function cluster(): ReturnType<typeof memoryKube> {
  const kube = memoryKube();
  const configuration = { aicr: { digests: 'Optional', versions: { 'v0.11.1': 'ghcr.io/nvidia/aicr:v0.11.1' } }, registry: { repository: REPO, auth: { mode: 'static', staticSecretRef: 'aicr-registry-auth' } } };
  kube.put(KIND.configMap, { metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace }, data: configurationData(configuration) });
  kube.put(KIND.configMap, planConfigMap(plan) as unknown as Record<string, unknown>);
  const [k, v] = ARGOCD.controllerSelector.split(',').map((t) => t.split('=')) as [string[], string[]];
  const labels = Object.fromEntries([k, v].map(([a = '', b = '']) => [a, b]));
  kube.put(KIND.statefulSet, { metadata: { name: 'argocd-application-controller', namespace: NAMESPACES.argocd, labels, generation: 1 }, spec: { replicas: 1 }, status: { readyReplicas: 1, observedGeneration: 1 } });
  return kube;
}

function runtime(): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'gpu', uid: UID, finalizers: [FINALIZER.cleanup], generation: 1, resourceVersion: '1' },
    spec: { aicrVersion: 'v0.11.1' },
    status: { targetPlan: TARGET, conditions: [{ type: CONDITION.resolved, status: 'True', reason: 'Resolved', message: 'resolved', lastTransitionTime: '2026-12-02T09:00:00Z' }] },
  } as RuntimeObject;
}

const ctxOf = (kube: ReturnType<typeof memoryKube>, rt: RuntimeObject) => ({
  kube,
  log: createLogger({ sink: () => undefined }),
  now: () => new Date('2026-12-02T10:00:00Z'),
  timings: DEFAULT_TIMINGS,
  item: { v: 1 as const, step: 'rollout', runtime: { name: 'gpu', uid: UID }, cause: 'MODIFIED', attempt: 1 },
  runtime: rt,
});

test('ENG-1 one look reads the configuration and the target plan once, even when the decision reaches the validation gate', async () => {
  const kube = cluster();
  const first = await runRollout(ctxOf(kube, runtime()));
  assert.match(first.conditions?.find((c) => c.type === CONDITION.released)?.reason ?? '', /AwaitingApproval/, 'a rollout is created and waits for its approver');
  const [created] = (await kube.list(KIND.runtimeRollout)).items;
  assert.ok(created, 'the rollout was created');
  await kube.patch(KIND.runtimeRollout, created.metadata.name, undefined, { spec: { approval: { approvedBy: 'alice', approvedAt: '2026-12-02T09:59:00Z' } } });
  kube.requests.clear();
  const second = await runRollout(ctxOf(kube, runtime()));
  assert.equal(second.conditions?.find((c) => c.type === CONDITION.released)?.reason, 'ValidationUnavailable', 'the approved rollout stops at the validation gate: validation is not installed');
  assert.equal(kube.count('get', KIND.configMap, CONFIGURATION.name), 1, 'the configuration is read once');
  assert.equal(kube.count('get', KIND.configMap, TARGET), 1, 'the target plan is read once');
  assert.equal(kube.count('list', KIND.runtimeRollout), 1);
  assert.equal(kube.count('list', KIND.application), 1);
  assert.equal(kube.count('patch', KIND.application) + kube.count('apply', KIND.application), 0, 'nothing is written to Argo CD before validation can run');
});

test('a second look that finds nothing changed writes nothing', async () => {
  const kube = cluster();
  await runRollout(ctxOf(kube, runtime()));
  kube.requests.clear();
  await runRollout(ctxOf(kube, runtime()));
  const writes = [...kube.requests.keys()].filter((at) => !at.startsWith('get ') && !at.startsWith('list '));
  assert.deepEqual(writes, [], 'the rollout waiting for approval is not written again');
});

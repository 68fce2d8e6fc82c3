// Each test knob does what it says, seen the way the control plane would see it: through the
// API server (Pod and Job status, kubectl logs) or the registry's address. Every test undoes
// its knobs, since all test files share one cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import {
  batch,
  core,
  jobPods,
  jobReaches,
  oneShotJob,
  readOrUndefined,
  serviceAccountWith,
  waitFor,
} from '../helpers/cluster.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { kubectl } from '../../harness/runtime.ts';
import {
  failPulls,
  forceAicrExit,
  holdPodsPending,
  slowAicr,
  slowPulls,
  stopRegistry,
  withKnob,
} from '../helpers/knobs.ts';
import { registryAnswers } from '../helpers/registryProcess.ts';
import { AICR_IMAGE, basicAuth, digestOf, pushBlob } from '../helpers/oci.ts';

const SHELL = 'testenv.aicr.local/shell:1';
const RECIPE_ARGS = ['recipe', '--service', 'eks', '--accelerator', 'h100', '--intent', 'training', '--os', 'ubuntu'];

async function namespace(prefix: string): Promise<string> {
  const ns = uniqueName(prefix);
  await serviceAccountWith(ns, 'default', []);
  return ns;
}

function podReaches(
  namespace: string,
  name: string,
  what: string,
  until: (pod: V1Pod | undefined) => boolean,
): Promise<V1Pod | undefined> {
  return waitFor<V1Pod>({
    path: `/api/v1/namespaces/${namespace}/pods`,
    name,
    what,
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace })),
    until,
    timeoutMs: 60_000,
  });
}

async function runPod(namespace: string, name: string, container: Omit<V1Container, 'name'>): Promise<void> {
  await core().createNamespacedPod({
    namespace,
    body: { metadata: { name }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', ...container }] } },
  });
}

const phase = (p: V1Pod | undefined): string | undefined => p?.status?.phase;
const waiting = (p: V1Pod | undefined): { reason?: string; message?: string } =>
  p?.status?.containerStatuses?.[0]?.state?.waiting ?? {};
const waitingReason = (p: V1Pod | undefined): string | undefined => waiting(p).reason;

/** A Job running the AICR image with these arguments, as the control plane runs a stage. */
async function aicrJob(ns: string, name: string, args: string[]): Promise<void> {
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, {
      containers: [{ name: 'aicr', image: AICR_IMAGE, args, terminationMessagePolicy: 'FallbackToLogsOnError' }],
    }),
  });
}

test("holdPodsPending: new Pods stay Pending, Unschedulable in the scheduler's words; undone, the same Pod runs", async () => {
  const ns = await namespace('hold');
  const before = (await core().listNode()).items
    .filter((n) => n.spec?.unschedulable === true)
    .map((n) => n.metadata?.name);
  const knob = await holdPodsPending();
  try {
    await runPod(ns, 'held', { image: SHELL, command: ['true'] });
    const pod = await podReaches(
      ns,
      'held',
      'the scheduler to turn the Pod away',
      (p) => p?.status?.conditions?.some((c) => c.reason === 'Unschedulable') === true,
    );
    const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.match(scheduled?.message ?? '', /^0\/\d+ nodes are available: .*node\(s\) were unschedulable/);
    assert.equal(phase(pod), 'Pending');
  } finally {
    await knob.undo();
  }
  const ran = await podReaches(
    ns,
    'held',
    'the Pod to run once the Nodes take Pods again',
    (p) => phase(p) === 'Succeeded',
  );
  assert.ok(ran?.spec?.nodeName);
  const after = (await core().listNode()).items
    .filter((n) => n.spec?.unschedulable === true)
    .map((n) => n.metadata?.name);
  assert.deepEqual(after, before, 'exactly the Nodes it cordoned are uncordoned');
});

test('failPulls: the image is not found, or its credential refused, as the kubelet reports it; undone, it pulls', async () => {
  const ns = await namespace('nopull');
  await withKnob(failPulls(AICR_IMAGE), () =>
    withKnob(failPulls(SHELL, 'refused'), async () => {
      await runPod(ns, 'gone', { image: AICR_IMAGE, args: ['--version'] });
      await runPod(ns, 'refused', { image: SHELL, command: ['true'] });
      const gone = await podReaches(ns, 'gone', 'ImagePullBackOff', (p) => waitingReason(p) === 'ImagePullBackOff');
      assert.match(waiting(gone).message ?? '', /ghcr\.io\/nvidia\/aicr:v0\.11\.1: not found$/);
      const refused = await podReaches(
        ns,
        'refused',
        'ImagePullBackOff',
        (p) => waitingReason(p) === 'ImagePullBackOff',
      );
      assert.match(waiting(refused).message ?? '', /manifests\/1: 401 Unauthorized$/);
    }),
  );
  await runPod(ns, 'again', { image: AICR_IMAGE, args: ['--version'] });
  await podReaches(ns, 'again', 'the image to pull once more', (p) => phase(p) === 'Succeeded');
});

test('slowPulls: the container waits in ContainerCreating for the delay, then runs', async () => {
  const ns = await namespace('slowpull');
  const delayMs = 1500;
  await withKnob(slowPulls(delayMs, SHELL), async () => {
    const created = Date.now();
    let seenCreating = false;
    await runPod(ns, 'slow', { image: SHELL, command: ['true'] });
    await podReaches(ns, 'slow', 'the slow Pod to finish', (p) => {
      seenCreating ||= waitingReason(p) === 'ContainerCreating';
      return phase(p) === 'Succeeded';
    });
    assert.ok(Date.now() - created >= delayMs, `it took at least ${delayMs} ms`);
    assert.ok(seenCreating, 'the container was seen waiting in ContainerCreating');
  });
});

test('forceAicrExit: the next aicr recipe in a Job exits 6 with the given stderr; the next one runs the real aicr', async () => {
  const ns = await namespace('forced');
  const stderr = 'Error: recipe: no overlay matches the requested criteria (forced by a test knob)\n';
  const recipe = await forceAicrExit('recipe', 6, stderr);
  const bundle = await forceAicrExit('bundle', 3, 'not for recipe\n');
  try {
    await aicrJob(ns, 'first', RECIPE_ARGS);
    await jobReaches(ns, 'first', 'Failed');
    const terminated = (await jobPods(ns, 'first'))[0]?.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(terminated?.exitCode, 6);
    assert.equal(terminated?.message, stderr);
    assert.equal(await kubectl('logs', '-n', ns, 'job/first'), stderr);
    assert.equal(await recipe.pending(), 0, 'the forced run was used');
    assert.equal(await bundle.pending(), 1, 'a forced run of another command is left alone');

    await aicrJob(ns, 'second', RECIPE_ARGS);
    await jobReaches(ns, 'second', 'Complete');
    assert.match(await kubectl('logs', '-n', ns, 'job/second'), /^kind: RecipeResult$/m);
  } finally {
    await recipe.undo();
    await bundle.undo();
  }
  assert.equal(await bundle.pending(), 0, 'undo removes what was not used');
});

test('slowAicr: the next aicr recipe runs for the delay longer, then runs the real aicr', async () => {
  const ns = await namespace('slowaicr');
  const delayMs = 1500;
  await withKnob(slowAicr('recipe', delayMs), async () => {
    await aicrJob(ns, 'slow', RECIPE_ARGS);
    let runningSince: number | undefined;
    // The namespace holds only the Job's Pod.
    await waitFor<V1Pod>({
      path: `/api/v1/namespaces/${ns}/pods`,
      name: '',
      what: "the Job's Pod to succeed",
      read: async () => (await jobPods(ns, 'slow'))[0],
      until: (p) => {
        if (phase(p) === 'Running') runningSince ??= Date.now();
        return phase(p) === 'Succeeded';
      },
      timeoutMs: 60_000,
    });
    assert.ok(
      runningSince !== undefined && Date.now() - runningSince >= delayMs - 250,
      'the container ran for about the delay at least',
    );
    assert.match(await kubectl('logs', '-n', ns, 'job/slow'), /^kind: RecipeResult$/m);
  });
});

test('stopRegistry: its address refuses connections and the proxy answers 502; undone, it serves what was pushed before', async () => {
  const { TESTENV_REGISTRY: registry, TESTENV_REGISTRY_PROXY: proxy } = testEnv();
  const repo = `aicr/${uniqueName('kept')}`;
  const bytes = new TextEncoder().encode(`pushed before the stop ${Date.now()}`);
  const digest = await pushBlob(`http://${registry}`, repo, bytes);
  await withKnob(stopRegistry(), async () => {
    assert.equal(await registryAnswers(), undefined, 'nothing listens on its address');
    const through = await fetch(`http://${proxy}/v2/${repo}/blobs/${digest}`, { headers: basicAuth() });
    assert.equal(through.status, 502);
    assert.match(await through.text(), /did not answer/);
  });
  const blob = await fetch(`http://${registry}/v2/${repo}/blobs/${digest}`, { headers: basicAuth() });
  assert.equal(blob.status, 200);
  assert.equal(digestOf(new Uint8Array(await blob.arrayBuffer())), digest);
});

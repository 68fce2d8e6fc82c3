// The forwarder resumes from its last resourceVersion, and when that history is gone (a real
// 410 from an API server without a watch cache, after an etcd compaction) it relists and
// enqueues every runtime, so the runtime still gets its status.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubeFromKubeconfig } from '../../shared/kube/fromKubeconfig.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { MemoryCheckpoint } from '../../shared/forwarder/checkpoint.ts';
import { compactEtcd, type ExtraApiServer, startExtraApiServer } from '../helpers/apiserver.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { CONTROL_PLANE_USER } from '../../harness/env.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

let server: ExtraApiServer;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  server = await startExtraApiServer('apiserver-nocache', ['--watch-cache=false']);
});
after(async () => {
  await server.stop();
  await deleteRuntime();
});

const observed = (generation: number) => async () => {
  const rt = await getRuntime();
  return rt?.status?.observedGeneration === generation && condition(rt, 'Reconciling') ? rt : undefined;
};

/** A fresh runtime brought to status by a control plane that then stops, leaving its checkpoint. */
async function firstPass(): Promise<{ kube: KubePort; checkpoint: MemoryCheckpoint }> {
  await deleteRuntime();
  const kube = kubeFromKubeconfig(server.kubeconfig, CONTROL_PLANE_USER);
  const checkpoint = new MemoryCheckpoint();
  await createRuntime({ aicrVersion: 'v0.11.1' });
  const first = startCapturedControlPlane({ kube, checkpoint });
  await waitFor('status for generation 1', observed(1));
  first.stop();
  await first.running;
  return { kube, checkpoint };
}

/** Resumes a control plane from the checkpoint until generation 2 has status; checks run before it stops. */
async function secondPass(
  kube: KubePort,
  checkpoint: MemoryCheckpoint,
  check: (cp: ReturnType<typeof startCapturedControlPlane>) => Promise<void> | void,
): Promise<void> {
  const second = startCapturedControlPlane({ kube, checkpoint });
  try {
    await waitFor('status for generation 2', observed(2));
    await check(second);
  } finally {
    second.stop();
    await second.running;
  }
}

test('after a forced 410 the forwarder relists and the runtime still gets its status', async (t) => {
  const { kube, checkpoint } = await firstPass();
  const resumeFrom = await checkpoint.load();
  assert.ok(resumeFrom, 'the forwarder recorded where it stopped');

  // While nobody watches: the runtime changes twice and etcd compacts away the history after
  // resumeFrom, so resuming there is refused with 410 Expired.
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  await kubectl('annotate', 'clusterruntime', 'cluster', 'example.com/touched=1');
  const compactedAt = await compactEtcd();
  assert.ok(compactedAt > Number(resumeFrom));

  await secondPass(kube, checkpoint, async (second) => {
    // The runtime's other watch (discovery facts) starts with a list of its own, so generation 2
    // can have its status before this watch has even met the 410: wait for the relist itself.
    await waitFor('the relist after the 410', async () =>
      Number(await checkpoint.load()) > Number(resumeFrom) ? true : undefined,
    );
    assert.ok(
      second.records().some((r) => r['message'] === 'watch history expired; relisting'),
      'the 410 was seen',
    );
    assert.ok(second.forwarder.stats.relists >= 1);
    assert.ok(second.forwarder.stats.enqueued >= 1);
    t.diagnostic(`resumed from ${resumeFrom}, compacted at ${compactedAt}, relists ${second.forwarder.stats.relists}`);
  });
});

test('a watch the server cannot continue (history compacted to its first event) is replaced by a relist', async () => {
  const { kube, checkpoint } = await firstPass();
  // One change, then compaction at exactly its revision: the watch may start, but the server
  // cannot produce the event's previous state and answers 500 on the watch stream.
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  await compactEtcd();
  await secondPass(kube, checkpoint, async (second) => {
    await waitFor('the relist', async () => (second.forwarder.stats.relists >= 1 ? true : undefined));
  });
});

test('a watch that resumes from a stored resourceVersion sees changes made while it was stopped', async () => {
  const { kube, checkpoint } = await firstPass();
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"suspendEngine":true}}');
  await secondPass(kube, checkpoint, async (second) => {
    // The runtime's own watch, resumed, sends the change; the discovery watch lists afresh anyway.
    await waitFor('the resumed watch to send the change', async () =>
      second.forwarder.stats.enqueued >= 1 ? true : undefined,
    );
    assert.equal(second.forwarder.stats.relists, 0, 'no relist was needed');
    assert.ok(second.forwarder.stats.watches >= 1);
  });
});

// The forwarder as AWS runs it by default (ADR 0018): started every minute, it watches in
// short passes against the real API server and its watch cache, stays while changes flow and
// leaves after a pass that sent nothing. A quiet window costs one pass, yet leaves every
// checkpoint where the next window resumes without a relist.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Context } from 'aws-lambda';
import { FORWARDER_CHECKPOINT } from '../../shared/api/constants.ts';
import { createForwarderHandler, DEADLINE_MARGIN_MS, type WindowResult } from '../../shared/aws/forwarderWindow.ts';
import { watchedBy } from '../../shared/forwarder/watched.ts';
import type { OutgoingMessage, QueueProducer } from '../../shared/queue/port.ts';
import { controlPlaneKube } from '../../harness/controlPlane.ts';
import { clearForwarderCheckpoints } from '../helpers/awsFunctions.ts';
import { captureLogger } from '../../harness/logs.ts';
import { createRuntime, deleteRuntime, ensureCrds, kubectl } from '../../harness/runtime.ts';

const QUIET_MS = 3000;
const WINDOW_MS = 40_000;
const context = { getRemainingTimeInMillis: () => WINDOW_MS + DEADLINE_MARGIN_MS } as Context;
// No step runs here: what the forwarder sends is the observation.
const sent: OutgoingMessage[] = [];
const producer: QueueProducer = {
  send: (m) => {
    sent.push(m);
    return Promise.resolve({ deduplicated: false });
  },
  deadLetter: () => Promise.resolve(),
};
let window: (event: unknown, context: Context) => Promise<WindowResult>;

async function runtimeCheckpoint(): Promise<bigint> {
  return BigInt(
    await kubectl(
      'get',
      'configmap',
      '-n',
      FORWARDER_CHECKPOINT.namespace,
      FORWARDER_CHECKPOINT.name,
      '-o',
      `jsonpath={.data.${FORWARDER_CHECKPOINT.key}}`,
    ),
  );
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await clearForwarderCheckpoints();
  // An AICR version the configuration does not pin: the runtime settles with no Job, so nothing changes after.
  await createRuntime({ aicrVersion: 'v1.1.0' });
  const kube = controlPlaneKube();
  window = createForwarderHandler(() => ({
    kube,
    producer,
    log: captureLogger('info').log,
    windowMs: WINDOW_MS,
    quietMs: QUIET_MS,
  }));
});
after(async () => {
  await deleteRuntime();
  await clearForwarderCheckpoints();
});

test('a quiet forwarder window leaves after one pass and moves the checkpoint on, so the next resumes without relisting', async () => {
  const first = await window({}, context);
  assert.equal(first.relists, watchedBy().length, 'with no checkpoints each watched kind lists once');
  const before = await runtimeCheckpoint();
  // Changes elsewhere in the cluster move the API server's resourceVersion, which the bookmarks carry.
  await kubectl('create', 'configmap', '-n', 'default', 'forwarder-quiet-elsewhere', '--from-literal=k=v');
  try {
    for (let i = 0; i < 3; i++) {
      const quiet = await window({}, context);
      assert.equal(quiet.relists, 0, `quiet window ${i + 1} resumed from its checkpoints`);
      assert.equal(quiet.enqueued, 0, `quiet window ${i + 1} sent nothing`);
      assert.ok(
        quiet.watchedMs < 2 * QUIET_MS + 1500,
        `quiet window ${i + 1} watched ${quiet.watchedMs} ms: one pass of ${QUIET_MS} ms, not the ${WINDOW_MS} ms window`,
      );
    }
  } finally {
    await kubectl('delete', 'configmap', '-n', 'default', 'forwarder-quiet-elsewhere', '--ignore-not-found');
  }
  assert.ok((await runtimeCheckpoint()) >= before, 'the checkpoint never moves back');
});

test('a change made between windows reaches the next window, which stays while changes flow and leaves once they stop', async () => {
  await kubectl('annotate', 'clusterruntime', 'cluster', 'example.com/between=1', '--overwrite');
  const from = sent.length;
  const changes = 6;
  const running = window({}, context);
  const started = Date.now();
  for (let i = 0; i < changes; i++) {
    await new Promise((r) => setTimeout(r, 1500));
    await kubectl('annotate', 'clusterruntime', 'cluster', `example.com/busy=${i}`, '--overwrite');
  }
  const lastChangeAfter = Date.now() - started;
  const busy = await running;
  assert.equal(busy.relists, 0);
  const woke = sent.slice(from).filter((m) => m.body.includes('"runtime"'));
  assert.ok(
    woke.length >= 2,
    `the change made before the window and the ones during it were sent (${woke.length} messages)`,
  );
  assert.ok(
    busy.watchedMs >= lastChangeAfter,
    `the window stayed while changes flowed (${busy.watchedMs} ms, last change at ${lastChangeAfter} ms)`,
  );
  assert.ok(
    busy.watchedMs < lastChangeAfter + 3 * QUIET_MS + 1500,
    `and left soon after they stopped (${busy.watchedMs} ms)`,
  );
  const after = await window({}, context);
  assert.equal(after.enqueued, 0, 'the next window finds nothing left to send');
});

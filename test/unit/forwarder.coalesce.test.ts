// A storm of changes to one runtime becomes a few messages, and the checkpoint never passes a
// change that has not been sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCheckpoint } from '../../shared/forwarder/checkpoint.ts';
import { Forwarder } from '../../shared/forwarder/forwarder.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { decodeWorkItem } from '../../shared/queue/workItem.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { replayKube } from '../helpers/watchOnlyKube.ts';

// One step woken per change, so message counts are change counts.
const table = STEP_TABLE.filter((r) => r.name === 'resolve');

const runtime = (uid: string, generation: number, rv: number): RuntimeObject => ({
  apiVersion: 'operator.aicr.run/v1alpha1',
  kind: 'ClusterRuntime',
  metadata: { name: 'cluster', uid, resourceVersion: String(rv), generation },
  // Each generation a spec of its own, as the API server moves it on only when the spec moved.
  spec: { aicrVersion: `v0.${generation}.0` },
});

/** A port whose single watch replays the given changes, a few at a time, then ends. */
function stormKube(events: RuntimeObject[], perTick: number): KubePort {
  return replayKube(
    events.map((object) => ({ type: 'MODIFIED', object })),
    { perTick },
  );
}

test('1,000 spec changes to one runtime in a storm coalesce into a few messages; the checkpoint ends at the last change', async () => {
  const events = Array.from({ length: 1000 }, (_, i) => runtime('u-1', i + 1, 100 + i));
  const producer = new RecordingProducer();
  const checkpoint = new MemoryCheckpoint();
  const fwd = new Forwarder({
    kube: stormKube(events, 50),
    producer,
    table,
    log: captureLogger().log,
    checkpoint,
    coalesceMs: 20,
  });
  const running = fwd.run();
  await new Promise((r) => setTimeout(r, 300));
  fwd.stop();
  await running;
  const perMessage = 1000 / producer.sent.length;
  assert.ok(perMessage >= 5, `${producer.sent.length} messages for 1000 changes`);
  assert.equal(fwd.stats.coalesced + fwd.stats.enqueued, 1000);
  const last = producer.sent.at(-1);
  assert.equal(last?.dedupId, 'u-1/resolve/rv/1099', 'the last message carries the last change');
  assert.equal(decodeWorkItem(last?.body ?? '').runtime.uid, 'u-1');
  assert.equal(await checkpoint.load(), '1099');
});

test('without coalescing every change is its own message', async () => {
  const events = Array.from({ length: 20 }, (_, i) => runtime('u-1', i + 1, 100 + i));
  const producer = new RecordingProducer();
  const fwd = new Forwarder({
    kube: stormKube(events, 5),
    producer,
    table,
    log: captureLogger().log,
    checkpoint: new MemoryCheckpoint(),
  });
  const running = fwd.run();
  await new Promise((r) => setTimeout(r, 100));
  fwd.stop();
  await running;
  assert.equal(producer.sent.length, 20);
});

test('changes to different runtimes are never folded together', async () => {
  const events = Array.from({ length: 40 }, (_, i) => runtime(`u-${i % 4}`, i + 1, 100 + i));
  const producer = new RecordingProducer();
  const fwd = new Forwarder({
    kube: stormKube(events, 40),
    producer,
    table,
    log: captureLogger().log,
    checkpoint: new MemoryCheckpoint(),
    coalesceMs: 20,
    // A clock that stands still: however slowly a loaded machine works through the storm, no
    // runtime's interval ends within it, so what is folded does not depend on the machine.
    now: () => 0,
  });
  const running = fwd.run();
  await new Promise((r) => setTimeout(r, 150));
  fwd.stop();
  await running;
  // Each runtime: its first change at once, the other nine folded into one message, sent as the forwarder stops.
  for (const uid of ['u-0', 'u-1', 'u-2', 'u-3']) {
    const mine = producer.sent.filter((m) => decodeWorkItem(m.body).runtime.uid === uid);
    assert.equal(mine.length, 2, uid);
    const lastRv = Math.max(
      ...events.filter((e) => e.metadata.uid === uid).map((e) => Number(e.metadata.resourceVersion)),
    );
    assert.equal(mine[1]?.dedupId, `${uid}/resolve/rv/${lastRv}`);
  }
});

test('a change after a quiet spell goes out at once, whatever the interval', async () => {
  const producer = new RecordingProducer();
  const fwd = new Forwarder({
    kube: stormKube([runtime('u-1', 1, 100)], 1),
    producer,
    table,
    log: captureLogger().log,
    checkpoint: new MemoryCheckpoint(),
    coalesceMs: 60_000,
  });
  const running = fwd.run();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(producer.sent.length, 1, 'sent before any interval passed');
  fwd.stop();
  await running;
});

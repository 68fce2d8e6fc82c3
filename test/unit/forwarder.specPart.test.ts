// A runtime change wakes only the steps whose part of the spec moved, and a change made after the
// control plane answered the one before it goes out at once, coalescing interval or not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCheckpoint } from '../../shared/forwarder/checkpoint.ts';
import { Forwarder } from '../../shared/forwarder/forwarder.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import type { KubePort, WatchEvent, WatchOptions } from '../../shared/kube/port.ts';
import { decodeWorkItem } from '../../shared/queue/workItem.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { watchOnlyKube } from '../helpers/watchOnlyKube.ts';

/** A port whose first watch delivers what the test plays into it; later watches wait for stop. */
function scriptedKube(): { kube: KubePort; play: (ev: WatchEvent<RuntimeObject>) => Promise<void> } {
  let deliver: ((ev: WatchEvent<RuntimeObject>) => void) | undefined;
  let end: () => void = () => undefined;
  const kube = watchOnlyKube(<T>(_: unknown, opts: WatchOptions<T>) => {
    deliver ??= (ev) => opts.onEvent(ev as unknown as WatchEvent<T>);
    const done = new Promise<void>((resolve) => (end = resolve));
    return Promise.resolve({ done, stop: () => end() });
  });
  const play = async (ev: WatchEvent<RuntimeObject>): Promise<void> => {
    while (!deliver) await new Promise((r) => setTimeout(r, 1));
    deliver(ev);
    // The forwarder handles events on a chain of promises; let it send.
    await new Promise((r) => setTimeout(r, 5));
  };
  return { kube, play };
}

let rv = 100;
function runtime(
  generation: number,
  spec: Record<string, unknown>,
  extra: { annotations?: Record<string, string>; observedGeneration?: number } = {},
): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: {
      name: 'cluster',
      uid: 'u-1',
      resourceVersion: String(++rv),
      generation,
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec,
    ...(extra.observedGeneration === undefined ? {} : { status: { observedGeneration: extra.observedGeneration } }),
  };
}

function start(coalesceMs: number) {
  const { kube, play } = scriptedKube();
  const producer = new RecordingProducer();
  const fwd = new Forwarder({
    kube,
    producer,
    log: captureLogger().log,
    checkpoint: new MemoryCheckpoint(),
    coalesceMs,
  });
  const running = fwd.run();
  let read = 0;
  /** The steps woken since the last call, in the order they were sent. */
  const woken = (): string[] => producer.sent.slice(read, (read = producer.sent.length)).map((m) => m.step);
  const stop = async (): Promise<void> => {
    fwd.stop();
    await running;
  };
  return { play, woken, stop, producer };
}

const SPEC = { aicrVersion: 'v0.11.1', actionTimeout: '30m', maintenance: { windows: [] } };

test('a change to actionTimeout wakes resolve alone; one to maintenance also the steps that read it; an annotation every step', async () => {
  const runtimeSteps = STEP_TABLE.filter((r) => (r.wakesOn as readonly string[]).includes('runtime-change')).map(
    (r) => r.name,
  );
  const f = start(0);
  await f.play({ type: 'ADDED', object: runtime(1, SPEC) });
  assert.deepEqual(f.woken(), runtimeSteps, 'a new runtime wakes every step that watches it');
  await f.play({ type: 'MODIFIED', object: runtime(2, { ...SPEC, actionTimeout: '45m' }) });
  assert.deepEqual(f.woken(), ['resolve'], 'only resolve reads actionTimeout at once');
  const windows = { windows: [{ kind: 'Allow', schedule: '0 2 * * *', duration: '2h' }] };
  await f.play({ type: 'MODIFIED', object: runtime(3, { ...SPEC, actionTimeout: '45m', maintenance: windows }) });
  assert.deepEqual(f.woken(), ['resolve', 'snapshot', 'rollout', 'drift-check'], 'token-refresh reads no spec');
  await f.play({
    type: 'MODIFIED',
    object: runtime(3, { ...SPEC, actionTimeout: '45m', maintenance: windows }, { annotations: { a: 'b' } }),
  });
  assert.deepEqual(f.woken(), runtimeSteps, 'an annotation may ask any step for something');
  await f.stop();
});

test('a change made once the control plane answered the one before goes out at once; one made before waits the interval', async () => {
  const f = start(60_000);
  await f.play({ type: 'ADDED', object: runtime(1, SPEC) });
  assert.ok(f.woken().includes('resolve'), 'the first change goes out at once');
  await f.play({ type: 'MODIFIED', object: runtime(1, SPEC, { observedGeneration: 1 }) });
  await f.play({ type: 'MODIFIED', object: runtime(2, { ...SPEC, actionTimeout: '1m' }, { observedGeneration: 1 }) });
  assert.deepEqual(f.woken(), ['resolve'], 'generation 1 was answered: generation 2 is not held back');
  await f.play({ type: 'MODIFIED', object: runtime(3, { ...SPEC, actionTimeout: '2m' }, { observedGeneration: 1 }) });
  assert.deepEqual(f.woken(), [], 'generation 2 is unanswered: generation 3 waits for the interval');
  await f.stop();
  const last = f.producer.sent.at(-1);
  assert.equal(decodeWorkItem(last?.body ?? '').step, 'resolve', 'stopping sends what waited');
  assert.equal(f.woken().length, 1);
});

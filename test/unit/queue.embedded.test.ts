// The embedded queue keeps the semantics the SQS FIFO path has.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmbeddedQueue } from '../../shared/queue/embedded.ts';
import type { ReceivedMessage } from '../../shared/queue/port.ts';
import { senderOf } from '../../shared/local/controlPlane.ts';

const fast = { redeliveryDelayMs: 5, maxReceives: 3 };

test('messages of one group are delivered in order, one at a time', async () => {
  const q = new EmbeddedQueue(fast);
  const seen: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  q.consume(async (m) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 2));
    seen.push(m.body);
    inFlight--;
  });
  for (const n of ['1', '2', '3', '4']) await q.send({ step: 'resolve', group: 'a', dedupId: n, body: n });
  await q.idle();
  assert.deepEqual(seen, ['1', '2', '3', '4']);
  assert.equal(maxInFlight, 1);
});

test('a duplicate ID inside the window is dropped, outside it is delivered', async () => {
  let clock = 0;
  const q = new EmbeddedQueue({ ...fast, dedupWindowMs: 100, now: () => clock });
  const seen: string[] = [];
  q.consume((m) => {
    seen.push(m.body);
    return Promise.resolve();
  });
  assert.equal((await q.send({ step: 'resolve', group: 'a', dedupId: 'x', body: 'first' })).deduplicated, false);
  assert.equal((await q.send({ step: 'resolve', group: 'a', dedupId: 'x', body: 'again' })).deduplicated, true);
  clock = 150;
  assert.equal((await q.send({ step: 'resolve', group: 'a', dedupId: 'x', body: 'later' })).deduplicated, false);
  await q.idle();
  assert.deepEqual(seen, ['first', 'later']);
});

test('a delayed message is not delivered before its delay', async () => {
  const q = new EmbeddedQueue(fast);
  const at: number[] = [];
  q.consume(() => {
    at.push(Date.now());
    return Promise.resolve();
  });
  const sent = Date.now();
  await q.send({ step: 'resolve', group: 'a', dedupId: 'd', body: 'later', delayMs: 60 });
  await q.idle();
  assert.equal(at.length, 1);
  assert.ok((at[0] ?? 0) - sent >= 55, 'delivered after the delay');
});

test('a failing message is redelivered, then dead-lettered, and never blocks another group', async () => {
  const q = new EmbeddedQueue(fast);
  const received: ReceivedMessage[] = [];
  q.consume((m) => {
    received.push(m);
    if (m.group === 'poison') return Promise.reject(new Error('boom'));
    return Promise.resolve();
  });
  await q.send({ step: 'resolve', group: 'poison', dedupId: 'p', body: 'bad' });
  await q.send({ step: 'resolve', group: 'poison', dedupId: 'p2', body: 'behind-bad' });
  await q.send({ step: 'resolve', group: 'ok', dedupId: 'o', body: 'good' });
  await q.idle();
  const poisonTries = received.filter((m) => m.body === 'bad').map((m) => m.receiveCount);
  assert.deepEqual(poisonTries, [1, 2, 3]);
  assert.deepEqual(q.deadLetters.map((m) => m.body).sort(), ['bad', 'behind-bad']);
  const good = received.findIndex((m) => m.body === 'good');
  const lastBad = received.map((m) => m.body).lastIndexOf('bad');
  assert.ok(good >= 0 && good < lastBad, 'the healthy group ran while the poisoned one was retrying');
  const behind = received.findIndex((m) => m.body === 'behind-bad');
  assert.ok(behind > lastBad, 'a group keeps its order: the next message waits for the failing head');
});

test('two groups are processed concurrently', async () => {
  const q = new EmbeddedQueue({ ...fast, concurrency: 2 });
  let inFlight = 0;
  let maxInFlight = 0;
  q.consume(async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 10));
    inFlight--;
  });
  await q.send({ step: 'resolve', group: 'a', dedupId: 'a', body: 'a' });
  await q.send({ step: 'resolve', group: 'b', dedupId: 'b', body: 'b' });
  await q.idle();
  assert.equal(maxInFlight, 2);
});

test("one runtime's group runs one message at a time per step's queue, and its steps side by side, as on SQS", async () => {
  const queues: Record<string, string> = { resolve: 'resolve', rollout: 'rollout', 'drift-check': 'rollout' };
  const q = new EmbeddedQueue({ ...fast, concurrency: 4, queueOf: (step) => queues[step] ?? step });
  const running = new Set<string>();
  const together: string[][] = [];
  q.consume(async (m) => {
    running.add(m.body);
    together.push([...running].sort());
    await new Promise((r) => setTimeout(r, 10));
    running.delete(m.body);
  });
  await q.send({ step: 'resolve', group: 'runtime-u', dedupId: '1', body: 'resolve' });
  await q.send({ step: 'rollout', group: 'runtime-u', dedupId: '2', body: 'rollout' });
  await q.send({ step: 'drift-check', group: 'runtime-u', dedupId: '3', body: 'drift-check' });
  await q.idle();
  assert.ok(
    together.some((s) => s.includes('resolve') && s.includes('rollout')),
    `steps with their own queues ran side by side: ${JSON.stringify(together)}`,
  );
  assert.ok(
    !together.some((s) => s.includes('rollout') && s.includes('drift-check')),
    `two steps sharing a queue never ran at once: ${JSON.stringify(together)}`,
  );
});

test('FLT-1 harness: a message the fault hook holds back is handled after one sent later in its group, and an unheld one keeps its order', async () => {
  const q = new EmbeddedQueue(fast);
  const seen: string[] = [];
  q.consume((m) => {
    seen.push(m.body);
    return Promise.resolve();
  });
  const holds = [30, 0, 0];
  const sender = senderOf(q, () => holds.shift() ?? 0);
  for (const n of ['late', 'second', 'third']) await sender.send({ step: 'resolve', group: 'a', dedupId: n, body: n });
  await q.idle();
  assert.deepEqual(seen, ['second', 'third', 'late']);
  assert.equal(senderOf(q, undefined), q, 'without the hook the queue is used as it is');
});

test('a stopped queue delivers nothing more, and settles once the handlers running at stop() have returned', async () => {
  const q = new EmbeddedQueue(fast);
  const finished: string[] = [];
  let release = (): void => undefined;
  const gate = new Promise<void>((r) => (release = r));
  q.consume(async (m) => {
    await gate;
    finished.push(m.body);
  });
  await q.send({ step: 'resolve', group: 'a', dedupId: '1', body: 'running' });
  await q.send({ step: 'resolve', group: 'a', dedupId: '2', body: 'queued' });
  q.stop();
  let settled = false;
  const settling = q.settled().then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false, 'not settled while a handler still runs');
  release();
  await settling;
  assert.deepEqual(finished, ['running'], 'the running handler finished; the queued message was not delivered');
});

// Retries back off by attempt: the work item carries its attempt number, each retry waits
// twice as long as the one before (10 s, 20 s, 40 s … capped at 5 min), and a transient
// failure keeps retrying at the cap for as long as it lasts; nothing the dispatcher retries is
// ever dead-lettered. A lost write race is re-run at once. Only a message that cannot be
// processed at all fails its delivery, and the queue dead-letters it after MAX_RECEIVES.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, KubeRequestError, StalledError, TransientError } from '../../shared/errors.ts';
import { CONFLICT_RERUNS, MAX_RECEIVES } from '../../shared/queue/deliveryPolicy.ts';
import { EmbeddedQueue } from '../../shared/queue/embedded.ts';
import { METRIC } from '../../shared/observability/metrics.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import type { ReceivedMessage } from '../../shared/queue/port.ts';
import { decodeWorkItem, encodeWorkItem } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import type { StepRunner } from '../../shared/look/contract.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { recordingKube } from '../helpers/statusKube.ts';
import { resolveItem } from '../../harness/steps.ts';

const fakeKube = (): KubePort => recordingKube().kube;

function delivery(body: string, n: number): ReceivedMessage {
  return { id: `m-${n}`, group: 'runtime-u-1', dedupId: `d-${n}`, body, receiveCount: 1, sentAt: 0 };
}

/** Feeds each retry back in, as the queue would, until nothing more is sent. */
async function chase(
  runner: StepRunner,
  rounds: number,
): Promise<{ delays: number[]; attempts: number[]; producer: RecordingProducer }> {
  const producer = new RecordingProducer();
  const dispatch = createDispatcher({ resolve: runner }, STEP_TABLE);
  const deps = {
    kube: fakeKube(),
    log: captureLogger().log,
    now: () => new Date(),
    timings: DEFAULT_TIMINGS,
    producer,
    random: () => 0,
  };
  let body = encodeWorkItem(resolveItem('u-1'));
  for (let n = 0; n < rounds; n++) {
    const before = producer.sent.length;
    await dispatch(delivery(body, n), deps);
    const next = producer.sent[before];
    if (!next) break;
    body = next.body;
  }
  return {
    delays: producer.sent.map((m) => m.delayMs ?? 0),
    attempts: producer.sent.map((m) => decodeWorkItem(m.body).attempt),
    producer,
  };
}

test('OBS-2 FLT-2 backoff delays grow across attempts, 10 s doubling to a 5 min cap, and a transient failure keeps retrying there, never dead-lettered', async () => {
  const { delays, attempts, producer } = await chase(() => Promise.reject(new TransientError('api 503')), 20);
  assert.deepEqual(delays.slice(0, 7), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  assert.equal(delays.length, 20, 'every round schedules the next, long past the eighth attempt');
  assert.ok(
    delays.slice(5).every((d) => d === 300_000),
    'at the cap',
  );
  assert.deepEqual(attempts.slice(0, 3), [2, 3, 4]);
  assert.equal(attempts.at(-1), 21);
  assert.equal(producer.dead.length, 0);
});

test('FLT-2 a lost write race is run again at once in the same delivery, and still losing it sends a retry due now', async () => {
  let runs = 0;
  const conflictOnce: StepRunner = () =>
    ++runs === 1 ? Promise.reject(new ConflictError('write conflict (Conflict); re-reading')) : Promise.resolve({});
  const once = await chase(conflictOnce, 1);
  assert.equal(runs, 2, 'the step ran again in the same delivery');
  assert.deepEqual(once.delays, [], 'no retry message was needed');
  runs = 0;
  const always: StepRunner = () => {
    runs++;
    return Promise.reject(new ConflictError('write conflict (Conflict); re-reading'));
  };
  const losing = await chase(always, 1);
  assert.equal(runs, 1 + CONFLICT_RERUNS);
  assert.deepEqual(losing.delays, [0], 'a retry due at once, not after a visibility timeout');
  assert.equal(losing.producer.dead.length, 0);
});

test('FLT-2 a malformed message fails its delivery, and the queue dead-letters it after MAX_RECEIVES with one DeadLettered line', async () => {
  const { log, records } = captureLogger('info');
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 1 });
  const dispatch = createDispatcher({ resolve: () => Promise.resolve({}) }, STEP_TABLE);
  const deps = { kube: fakeKube(), log, now: () => new Date(), timings: DEFAULT_TIMINGS, producer: queue };
  let deliveries = 0;
  queue.consume(async (msg) => {
    deliveries++;
    await dispatch(msg, deps);
  });
  await queue.send({ step: 'resolve', group: 'runtime-u-1', dedupId: 'bad', body: '{"v":1}' });
  await queue.idle();
  queue.stop();
  assert.equal(deliveries, MAX_RECEIVES);
  assert.equal(queue.deadLetters.length, 1);
  const dead = records().filter((r) => r[METRIC.deadLettered.name] === 1);
  assert.equal(dead.length, 1, 'counted once, on its last delivery');
  assert.ok(records().some((r) => r['message'] === 'malformed message'));
});

test('each retry has its own deduplication ID, so retries of different deliveries never collide', async () => {
  const { producer } = await chase(() => Promise.reject(new TransientError('api 503')), 4);
  const ids = producer.sent.map((m) => m.dedupId);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^u-1\/resolve\/retry\/m-\d+$/);
});

test('COND-2 a stall that clears by itself retries at the cap for as long as it lasts and is never dead-lettered', async () => {
  const { delays, producer } = await chase(
    () => Promise.reject(new StalledError('RegistryCredentialsUnavailable', 'minting an ecr token failed')),
    12,
  );
  assert.equal(delays.length, 12);
  assert.deepEqual(delays.slice(0, 3), [10_000, 20_000, 40_000]);
  assert.ok(delays.slice(5).every((d) => d === 300_000));
  assert.equal(producer.dead.length, 0);
});

test('a stall that waits for a person schedules nothing', async () => {
  const { delays, producer } = await chase(() => Promise.reject(new StalledError('TransitionBlocked', 'blocked')), 3);
  assert.deepEqual(delays, []);
  assert.equal(producer.dead.length, 0);
});

test('REG-1 a step that reports a transient failure in its conditions is retried with the same backoff by attempt, and never dead-lettered', async () => {
  const report = {
    conditions: [
      { type: 'Resolved', status: 'False', reason: 'Resolving', message: '[SERVICE_UNAVAILABLE] registry down' },
    ],
    backoff: true,
  } as const;
  const { delays, attempts, producer } = await chase(() => Promise.resolve(report), 12);
  assert.deepEqual(delays.slice(0, 6), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000]);
  assert.equal(delays.length, 12, 'still retrying after the last attempt a thrown error would have');
  assert.deepEqual(attempts.slice(0, 3), [2, 3, 4]);
  assert.equal(producer.dead.length, 0);
});

test('a recheck with a key is one timer per key: two runs asking for the same time send the same deduplication ID', async () => {
  const producer = new RecordingProducer();
  const runner: StepRunner = () =>
    Promise.resolve({ recheckAfterMs: 60_000, recheckKey: 'refresh-2026-12-01T06:00:00.000Z' });
  const dispatch = createDispatcher({ resolve: runner }, STEP_TABLE);
  const deps = {
    kube: fakeKube(),
    log: captureLogger().log,
    now: () => new Date(),
    timings: DEFAULT_TIMINGS,
    producer,
  };
  for (const n of [1, 2]) await dispatch(delivery(encodeWorkItem(resolveItem('u-1')), n), deps);
  const ids = producer.sent.map((m) => m.dedupId);
  assert.deepEqual(ids, [
    'u-1/resolve/timer/refresh-2026-12-01T06:00:00.000Z',
    'u-1/resolve/timer/refresh-2026-12-01T06:00:00.000Z',
  ]);
  assert.deepEqual(
    producer.sent.map((m) => m.delayMs),
    [60_000, 60_000],
  );
});

test('OBS-3 FLT-2 an identity the API server refuses everything (no access entry) neither spins nor goes quiet: one stall-not-written line naming the likely cause, one KubeApiUnreachable count, and a retry with backoff', async () => {
  const refused = (): Promise<never> =>
    Promise.reject(new KubeRequestError(401, 'Unauthorized', [], 'aicr:step:resolve'));
  let requests = 0;
  let configurationReads = 0;
  const kube: KubePort = {
    ...fakeKube(),
    // The configuration read the framework starts beside the runtime's is counted on its own.
    get: (kind) => (kind.plural === 'configmaps' ? configurationReads++ : requests++, refused()),
    applyStatus: () => (requests++, refused()),
  };
  const producer = new RecordingProducer();
  const { log, records } = captureLogger();
  const dispatch = createDispatcher({ resolve: refused }, STEP_TABLE);
  await dispatch(delivery(encodeWorkItem(resolveItem('u-1')), 0), {
    kube,
    log,
    now: () => new Date(),
    timings: DEFAULT_TIMINGS,
    producer,
    random: () => 0,
  });
  assert.ok(requests <= 2, `the refused stall is not written over and over (${requests} requests)`);
  assert.ok(configurationReads <= 1, `the configuration is read at most once (${configurationReads} reads)`);
  const line = records().filter(
    (r) => r['message'] === 'stall not written: kubernetes api refused the runtime status write',
  );
  assert.equal(line.length, 1);
  assert.equal(line[0]?.['httpStatus'], 401);
  assert.equal(line[0]?.['identity'], 'aicr:step:resolve');
  assert.match(String(line[0]?.['likelyCause']), /access entry/);
  assert.equal(records().filter((r) => r[METRIC.kubeUnreachable.name] === 1).length, 1);
  assert.deepEqual(
    producer.sent.map((m) => m.delayMs),
    [10_000],
    'retried with backoff, never dead-lettered',
  );
  assert.equal(producer.dead.length, 0);
});

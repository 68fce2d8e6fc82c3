// A step that keeps failing is never silent (STL-1): below the bound a failure retried by itself
// is logged only (OBS-2); once it has failed on every attempt for longer than the bound, counted
// from the first failure however often the message is sent again, the runtime stalls with
// StepFailing naming the step, the error class and its text, and kstatus reads it as Failed. It
// keeps retrying, and the step's next successful report clears it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedMessage } from '../../shared/queue/port.ts';
import { decodeWorkItem, encodeWorkItem } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import type { StepReport, StepRunner } from '../../shared/look/contract.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { type Applied, recordingKube } from '../helpers/statusKube.ts';
import { resolveItem } from '../../harness/steps.ts';

const delivery = (body: string, n: number): ReceivedMessage => ({
  id: `m-${n}`,
  group: 'runtime-u-1',
  dedupId: `d-${n}`,
  body,
  receiveCount: 1,
  sentAt: 0,
});

const T0 = Date.parse('2026-12-07T10:00:00Z');

/** Feeds each retry back in, the clock moved by its delay, until a status is written; when that was. */
async function failUntilStalled(
  dispatch: ReturnType<typeof createDispatcher>,
  deps: Parameters<ReturnType<typeof createDispatcher>>[1] & { producer: RecordingProducer },
  applies: readonly Applied[][],
  advance: (ms: number) => number,
): Promise<{ body: string; stalledAt: number | undefined }> {
  let body = encodeWorkItem(resolveItem('u-1'));
  let at = deps.now().getTime();
  for (let n = 0; n < 12; n++) {
    await dispatch(delivery(body, n), deps);
    const next = deps.producer.sent.at(-1);
    assert.ok(next, 'every failure schedules a retry');
    assert.equal(decodeWorkItem(next.body).failingSince, T0, 'the first failure is carried from retry to retry');
    body = next.body;
    if (applies.length > 0) return { body, stalledAt: at };
    at = advance(next.delayMs ?? 0);
  }
  return { body, stalledAt: undefined };
}

test('STL-1 OBS-2 a step failing with an unknown error stalls the runtime with StepFailing past the bound, keeps retrying, and clears on its next success', async () => {
  const { kube, applies } = recordingKube();
  const producer = new RecordingProducer();
  let clock = T0;
  let failing = true;
  const runner: StepRunner = () =>
    failing
      ? Promise.reject(new TypeError("Cannot read properties of undefined (reading 'spec')"))
      : Promise.resolve<StepReport>({
          conditions: [{ type: 'Resolved', status: 'True', reason: 'Resolved', message: 'plan resolved' }],
        });
  const dispatch = createDispatcher({ resolve: runner }, STEP_TABLE);
  const deps = {
    kube,
    log: captureLogger().log,
    now: () => new Date(clock),
    timings: DEFAULT_TIMINGS,
    producer,
    random: () => 0,
  };
  const { body, stalledAt } = await failUntilStalled(dispatch, deps, applies, (ms) => (clock += ms));
  assert.ok(stalledAt !== undefined, 'the runtime stalled');
  assert.ok(stalledAt - T0 >= DEFAULT_TIMINGS.failingStallAfterMs, 'not before the bound: below it, logs only');
  assert.ok(
    stalledAt - T0 < DEFAULT_TIMINGS.failingStallAfterMs + DEFAULT_TIMINGS.backoffCapMs,
    'at the first attempt past it',
  );
  const stall = applies.flat().find((c) => c.reason === 'StepFailing' && c.type === 'Resolved');
  assert.ok(stall, "on the step's own condition");
  assert.equal(stall.status, 'False');
  assert.match(
    stall.message,
    /^step resolve has failed on every attempt since 2026-12-07T10:00:00Z, last with unexpected: unexpected TypeError\. It keeps retrying/,
  );
  const summary = applies.at(-1) ?? [];
  const byType = (t: string): Applied | undefined => summary.find((c) => c.type === t);
  assert.deepEqual(
    [byType('Stalled')?.status, byType('Stalled')?.reason, byType('Reconciling')?.status, byType('Ready')?.status],
    ['True', 'StepFailing', 'False', 'False'],
    'kstatus reads Stalled=True with Reconciling=False as Failed',
  );
  const sent = producer.sent.length;
  // The stall does not stop the work: the same chain retries, and the next success clears it.
  failing = false;
  await dispatch(delivery(body, 99), deps);
  assert.equal(producer.sent.length, sent, 'succeeded: no further retry');
  const cleared = applies
    .flat()
    .filter((c) => c.type === 'Resolved')
    .at(-1);
  assert.equal(cleared?.reason, 'Resolved');
  assert.equal(applies.at(-1)?.find((c) => c.type === 'Stalled')?.status, 'False');
  assert.equal(producer.dead.length, 0, 'nothing dead-lettered');
});

test('STL-1 new work after a success starts its own count: a failure that ends within the bound never stalls', async () => {
  const { kube, applies } = recordingKube();
  const producer = new RecordingProducer();
  let clock = T0;
  let fails = 3;
  const runner: StepRunner = () => (fails-- > 0 ? Promise.reject(new Error('boom')) : Promise.resolve<StepReport>({}));
  const dispatch = createDispatcher({ resolve: runner }, STEP_TABLE);
  const deps = { kube, log: captureLogger().log, now: () => new Date(clock), timings: DEFAULT_TIMINGS, producer };
  let body = encodeWorkItem(resolveItem('u-1'));
  for (let n = 0; n < 5; n++) {
    const before = producer.sent.length;
    await dispatch(delivery(body, n), deps);
    const next = producer.sent[before];
    if (!next) break;
    body = next.body;
    clock += next.delayMs ?? 0;
  }
  assert.equal(applies.length, 0, 'no condition written for a failure that ended within the bound');
  assert.equal(producer.sent.length, 3);
});

// A look again a step asked for is skipped once a later look of the same step has run in the
// same process: that look asked for its own if it needed one. Timers (keyed) always run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubePort } from '../../shared/kube/port.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import type { ReceivedMessage } from '../../shared/queue/port.ts';
import { decodeWorkItem, encodeWorkItem } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import type { StepReport } from '../../shared/look/contract.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { dispatchedRuntime, resolveItem } from '../../harness/steps.ts';
import { watchOnlyKube } from '../helpers/watchOnlyKube.ts';

function readOnlyKube(): KubePort {
  return {
    ...watchOnlyKube(() => Promise.reject(new Error('not used'))),
    get: <T>() => Promise.resolve(structuredClone(dispatchedRuntime) as RuntimeObject as T),
  };
}

let n = 0;
const delivery = (body: string): ReceivedMessage => ({
  id: `m-${++n}`,
  group: 'runtime-u-1',
  dedupId: `d-${n}`,
  body,
  receiveCount: 1,
  sentAt: 0,
});

async function scenario(report: StepReport): Promise<{ looks: string[] }> {
  const looks: string[] = [];
  let clock = 1_000;
  const producer = new RecordingProducer();
  const dispatch = createDispatcher(
    {
      resolve: (ctx) => {
        looks.push(ctx.item.cause);
        return Promise.resolve(report);
      },
    },
    STEP_TABLE,
  );
  const deps = {
    kube: readOnlyKube(),
    log: captureLogger().log,
    now: () => new Date((clock += 10)),
    timings: DEFAULT_TIMINGS,
    producer,
  };
  await dispatch(delivery(encodeWorkItem(resolveItem('u-1', 'aicr-run MODIFIED'))), deps);
  const first = producer.sent.at(-1);
  await dispatch(delivery(encodeWorkItem(resolveItem('u-1', 'discovery-change MODIFIED'))), deps);
  const second = producer.sent.at(-1);
  assert.ok(first && second, 'each look asked for a look again');
  await dispatch(delivery(first.body), deps);
  await dispatch(delivery(second.body), deps);
  return { looks };
}

test('a look again asked before a later look of the same step is skipped; the later one runs', async () => {
  const { looks } = await scenario({ recheckAfterMs: 5_000 });
  assert.deepEqual(looks, ['aicr-run MODIFIED', 'discovery-change MODIFIED', 'recheck']);
});

test('a timer (a keyed look again) runs however many looks came after it', async () => {
  const { looks } = await scenario({ recheckAfterMs: 5_000, recheckKey: 'window' });
  assert.deepEqual(looks, ['aicr-run MODIFIED', 'discovery-change MODIFIED', 'recheck', 'recheck']);
});

test('a look again carries when the look that asked started; a timer does not', () => {
  const item = { ...resolveItem('u-1'), askedAt: 1234 };
  assert.equal(decodeWorkItem(encodeWorkItem(item)).askedAt, 1234);
  assert.equal(decodeWorkItem(encodeWorkItem(resolveItem('u-1'))).askedAt, undefined);
});

// A step run's timings (how long it took, how old its message was) are metric series only when
// the function is told to send them, as the template does with the dashboard on; otherwise the
// same numbers are plain fields of one `step run` line, which Logs Insights can still chart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubePort } from '../../shared/kube/port.ts';
import { METRIC, STEP_TIMING_METRICS_SETTING } from '../../shared/observability/metrics.ts';
import { encodeWorkItem } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { dispatchedRuntime as runtime, resolveItem } from '../../harness/steps.ts';

/** Reads only: the step below changes nothing. */
function readOnlyKube(): KubePort {
  const refused = (): Promise<never> => Promise.reject(new Error('a step that changes nothing writes nothing'));
  return {
    get: <T>() => Promise.resolve(structuredClone(runtime) as T),
    applyStatus: refused,
    list: refused,
    watch: refused,
    create: refused,
    update: refused,
    apply: refused,
    patch: refused,
    delete: refused,
  };
}

/** Sets the function setting (or leaves it out) for one call, as the function's environment would. */
function setTiming(value: string | undefined): void {
  if (value === undefined) Reflect.deleteProperty(process.env, STEP_TIMING_METRICS_SETTING);
  else process.env[STEP_TIMING_METRICS_SETTING] = value;
}

async function oneRun(setting: string | undefined): Promise<Record<string, unknown>[]> {
  const before = process.env[STEP_TIMING_METRICS_SETTING];
  setTiming(setting);
  try {
    const { log, records } = captureLogger('info');
    const dispatch = createDispatcher({ resolve: () => Promise.resolve({}) }, STEP_TABLE);
    const sentAt = Date.now() - 3_000;
    await dispatch(
      {
        id: 'm-1',
        group: 'runtime-u-1',
        dedupId: 'd-1',
        body: encodeWorkItem(resolveItem('u-1')),
        receiveCount: 1,
        sentAt,
      },
      {
        kube: readOnlyKube(),
        log,
        now: () => new Date(),
        timings: DEFAULT_TIMINGS,
        producer: new RecordingProducer(),
        random: () => 0,
      },
    );
    return records();
  } finally {
    setTiming(before);
  }
}

const timingName = METRIC.reconcileDuration.name;
const ageName = METRIC.messageAge.name;

test('OBS-3 by default a step run sends its duration and message age as one metric line in embedded metric format', async () => {
  const lines = await oneRun(undefined);
  const metric = lines.filter((l) => l['message'] === 'metric' && timingName in l);
  assert.equal(metric.length, 1);
  assert.ok(metric[0]?.['_aws'], 'an embedded-metric block, which CloudWatch turns into series');
  assert.equal(metric[0]?.['Step'], 'resolve');
  assert.ok(Number(metric[0]?.[ageName]) >= 3, 'the message age counts from its send');
  assert.equal(lines.filter((l) => l['message'] === 'step run').length, 0);
});

test('OBS-3 told not to, a step run sends no metric series and logs the same numbers as plain fields of a step run line', async () => {
  const lines = await oneRun('false');
  assert.equal(lines.filter((l) => '_aws' in l).length, 0, 'no embedded-metric block at all');
  const run = lines.filter((l) => l['message'] === 'step run');
  assert.equal(run.length, 1);
  assert.equal(typeof run[0]?.[timingName], 'number');
  assert.ok(Number(run[0]?.[ageName]) >= 3);
  assert.equal(run[0]?.['step'], 'resolve');
  assert.equal(run[0]?.['runtimeUID'], 'u-1');
});

// A Kubernetes API server the function cannot reach: a server that takes the TCP connection and
// never answers, as a private endpoint behind a security group that drops packets looks from
// inside the VPC. Every request ends at its connect or total timeout with an error naming the
// likely causes, the step's failure becomes one log line and one KubeApiUnreachable metric with a
// retry scheduled, well within the function's timeout, and nothing is written (OBS-2).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { DeadlineError, KubeUnreachableError } from '../../shared/errors.ts';
import { withDeadline, DEADLINE_RESERVE_MS, STEP_START_MIN_MS } from '../../shared/deadline.ts';
import { KubeClient } from '../../shared/kube/client.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { CONNECT_TIMEOUT_MS, RestClient } from '../../shared/kube/rest.ts';
import { METRIC } from '../../shared/observability/metrics.ts';
import { encodeWorkItem } from '../../shared/queue/workItem.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { runResolve } from '../../shared/steps/resolve/index.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { silentServer } from '../helpers/silentServer.ts';
import { resolveItem } from '../../harness/steps.ts';

const blackhole = await silentServer();
const { port } = blackhole;
after(() => blackhole.close());

function silentKube(): KubeClient {
  return new KubeClient(
    new RestClient({
      server: `https://127.0.0.1:${port}`,
      tls: { insecure: true },
      name: 'test identity',
      identity: () => Promise.resolve('test identity'),
    }),
  );
}

test('OBS-2 a server that never completes the handshake fails the request at the connect timeout, naming the likely causes', async () => {
  const started = Date.now();
  const err = await silentKube()
    .get(KIND.clusterRuntime, 'cluster')
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const took = Date.now() - started;
  assert.ok(err instanceof KubeUnreachableError, `got ${String(err)}`);
  assert.equal(err.failure, `connect timed out after ${CONNECT_TIMEOUT_MS / 1000} s`);
  assert.match(err.message, /security group allows tcp 443/);
  assert.match(err.message, /endpoint's access/);
  assert.ok(took >= CONNECT_TIMEOUT_MS - 100 && took < CONNECT_TIMEOUT_MS + 2_000, `ended after ${took} ms`);
});

test('near the deadline a request is cut short to end before the reserve, and with less than the reserve left it is not sent at all', async () => {
  const started = Date.now();
  const cut = await withDeadline(DEADLINE_RESERVE_MS + 700, () =>
    silentKube().get(KIND.clusterRuntime, 'cluster'),
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(cut instanceof KubeUnreachableError);
  assert.match(cut.failure, /^no answer within 0\.\d s$/);
  assert.ok(Date.now() - started < 1_500);
  const refused = await withDeadline(DEADLINE_RESERVE_MS - 1, () =>
    silentKube().get(KIND.clusterRuntime, 'cluster'),
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof DeadlineError);
});

test('OBS-3 an unreachable API server during a step is one log line naming the causes and one KubeApiUnreachable metric, with a retry, within the function timeout', async () => {
  const { log, records } = captureLogger('info');
  const producer = new RecordingProducer();
  const dispatch = createDispatcher({ resolve: runResolve }, STEP_TABLE);
  const msg = {
    id: 'm-1',
    group: 'runtime-u-1',
    dedupId: 'd-1',
    body: encodeWorkItem(resolveItem('u-1')),
    receiveCount: 1,
    sentAt: Date.now(),
  };
  const started = Date.now();
  await withDeadline(30_000, () =>
    dispatch(msg, {
      kube: silentKube(),
      log,
      producer,
      now: () => new Date(),
      timings: DEFAULT_TIMINGS,
      random: () => 0,
    }),
  );
  assert.ok(Date.now() - started < 30_000 - DEADLINE_RESERVE_MS, 'done before the function would have timed out');
  const line = records().find((r) => r['message'] === 'kubernetes api unreachable');
  assert.ok(line, 'the log line');
  assert.equal(line['server'], `127.0.0.1:${port}`);
  assert.match(String(line['error']), /security group/);
  assert.equal(records().filter((r) => r[METRIC.kubeUnreachable.name] === 1).length, 1, 'the alarm metric, once');
  assert.deepEqual(
    producer.sent.map((m) => m.delayMs),
    [DEFAULT_TIMINGS.backoffBaseMs],
    'retried with backoff',
  );
});

test('with too little of the invocation left a step is not started: its message is handed on, unchanged and due at once', async () => {
  const { log, records } = captureLogger('info');
  const producer = new RecordingProducer();
  let ran = false;
  const dispatch = createDispatcher({ resolve: () => ((ran = true), Promise.resolve({})) }, STEP_TABLE);
  const body = encodeWorkItem(resolveItem('u-1'));
  await withDeadline(STEP_START_MIN_MS - 1, () =>
    dispatch(
      { id: 'm-2', group: 'runtime-u-1', dedupId: 'd-2', body, receiveCount: 1, sentAt: Date.now() },
      { kube: silentKube(), log, producer, now: () => new Date(), timings: DEFAULT_TIMINGS },
    ),
  );
  assert.equal(ran, false);
  assert.deepEqual(
    producer.sent.map((m) => [m.body, m.delayMs ?? 0]),
    [[body, 0]],
  );
  assert.ok(records().some((r) => r['message'] === 'too little time left to start the step; handed to a retry'));
});

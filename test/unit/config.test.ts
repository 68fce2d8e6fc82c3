import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireQueues, sqsRoutes } from '../../shared/aws/routes.ts';
import { ConfigError, loadConfig } from '../../shared/aws/environment.ts';
import { QUEUE_NAMES } from '../../shared/steps/table.ts';
import { DEFAULT_TIMINGS, timingsFrom } from '../../shared/timings.ts';

const good = {
  AICR_RESOLVE_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/q.fifo',
  AICR_DELAY_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/1/d',
};

test('configuration parses with defaults', () => {
  assert.equal(loadConfig(good).LOG_LEVEL, 'info');
});

test('a misspelt setting fails start-up naming it', () => {
  assert.throws(
    () => loadConfig({ ...good, AICR_RESOLVE_QUEUE_ULR: 'x' }),
    (e: unknown) => e instanceof ConfigError && /AICR_RESOLVE_QUEUE_ULR/.test(e.message),
  );
});

test('a missing or malformed setting names the key', () => {
  assert.throws(
    () => requireQueues(loadConfig({ AICR_DELAY_QUEUE_URL: good.AICR_DELAY_QUEUE_URL }), ['resolve']),
    /AICR_RESOLVE_QUEUE_URL/,
  );
  assert.throws(() => loadConfig({ ...good, LOG_LEVEL: 'loud' }), /LOG_LEVEL/);
  assert.throws(() => loadConfig({ ...good, AICR_BACKOFF_BASE: '10 seconds' }), /AICR_BACKOFF_BASE must be a duration/);
});

test('every duration defaults to the runbook value and can be set', () => {
  const t = timingsFrom(loadConfig(good));
  assert.deepEqual(t, {
    backoffBaseMs: 10_000,
    backoffCapMs: 5 * 60_000,
    tokenRefreshIntervalMs: 6 * 3_600_000,
    tokenStaleWithinMs: 3_600_000,
    engineRecheckMs: 30_000,
    failedJobTtlMs: 24 * 3_600_000,
    stalledJobTtlMs: 7 * 24 * 3_600_000,
    sweepStaleAfterMs: 5 * 60_000,
    sweepGraceMs: 11 * 60_000,
    failingStallAfterMs: 15 * 60_000,
  });
  assert.deepEqual(DEFAULT_TIMINGS, t);
  const scaled = timingsFrom(loadConfig({ ...good, AICR_BACKOFF_BASE: '100ms', AICR_BACKOFF_CAP: '2s' }));
  assert.equal(scaled.backoffBaseMs, 100);
  assert.equal(scaled.backoffCapMs, 2000);
});

test("the URL base gives every step queue a route, its name completing the base; a queue's own URL wins over it", () => {
  const base = 'https://sqs.us-east-1.amazonaws.com/1/aicr-control-plane-prod-';
  const routes = sqsRoutes(loadConfig({ ...good, AICR_QUEUE_URL_BASE: base }));
  assert.deepEqual(Object.keys(routes.fifoQueueUrl).sort(), [...QUEUE_NAMES].sort());
  assert.equal(routes.fifoQueueUrl['snapshot'], `${base}snapshot.fifo`);
  assert.equal(routes.fifoQueueUrl['resolve'], good.AICR_RESOLVE_QUEUE_URL, 'the explicit setting wins');
  assert.deepEqual(routes.dlqUrl, {}, 'the base routes no dead letters');
  assert.doesNotThrow(() => requireQueues(loadConfig({ AICR_QUEUE_URL_BASE: base }), QUEUE_NAMES, { delays: false }));
  assert.throws(
    () =>
      requireQueues(loadConfig({ AICR_SNAPSHOT_QUEUE_URL: `${base}snapshot.fifo` }), ['resolve', 'snapshot'], {
        delays: false,
      }),
    /queue resolve: setting AICR_QUEUE_URL_BASE or AICR_RESOLVE_QUEUE_URL is required/,
  );
  assert.throws(
    () => loadConfig({ AICR_QUEUE_URL_BASE: 'aicr-control-plane-prod-' }),
    /AICR_QUEUE_URL_BASE must be the URL of the step queues/,
  );
  assert.deepEqual(
    sqsRoutes(loadConfig(good)).fifoQueueUrl,
    { resolve: good.AICR_RESOLVE_QUEUE_URL },
    'without the base, only the queues named',
  );
});

test('queue settings are derived from the step table', () => {
  assert.equal(
    (
      loadConfig({ ...good, AICR_RESOLVE_DLQ_URL: 'https://sqs.us-east-1.amazonaws.com/1/dlq.fifo' }) as Record<
        string,
        unknown
      >
    )['AICR_RESOLVE_DLQ_URL'],
    'https://sqs.us-east-1.amazonaws.com/1/dlq.fifo',
  );
});

test("KROP-3 the sweeper's grace must outlast one forwarder window, or start-up fails naming both settings", () => {
  assert.throws(
    () => loadConfig({ ...good, AICR_SWEEP_GRACE: '5m', AICR_FORWARDER_WINDOW_SECONDS: '320' }),
    /AICR_SWEEP_GRACE must be longer than one forwarder window \(AICR_FORWARDER_WINDOW_SECONDS, 320s\)/,
  );
  assert.throws(
    () => loadConfig({ ...good, AICR_SWEEP_GRACE: '1m' }),
    /AICR_FORWARDER_WINDOW_SECONDS, 70s/,
    'the default window is 70 s',
  );
  assert.equal(
    loadConfig({ ...good, AICR_SWEEP_GRACE: '2m', AICR_FORWARDER_WINDOW_SECONDS: '60' }).AICR_SWEEP_GRACE,
    120_000,
  );
});

test('a fleet lists further clusters by name; an empty list (the template default) is none, and the own cluster or a bad name is refused by name', () => {
  assert.deepEqual(loadConfig(good).AICR_FLEET_CLUSTERS, []);
  assert.deepEqual(loadConfig({ ...good, AICR_FLEET_CLUSTERS: '' }).AICR_FLEET_CLUSTERS, []);
  assert.deepEqual(loadConfig({ ...good, AICR_FLEET_CLUSTERS: 'gpu-b, gpu_c' }).AICR_FLEET_CLUSTERS, [
    'gpu-b',
    'gpu_c',
  ]);
  assert.throws(
    () => loadConfig({ ...good, AICR_FLEET_CLUSTERS: 'gpu b' }),
    /AICR_FLEET_CLUSTERS.*must list cluster names/,
  );
  assert.throws(
    () => loadConfig({ ...good, AICR_EKS_CLUSTER_NAME: 'gpu-a', AICR_FLEET_CLUSTERS: 'gpu-b,gpu-a' }),
    /AICR_FLEET_CLUSTERS lists gpu-a, the deployment's own cluster/,
  );
});

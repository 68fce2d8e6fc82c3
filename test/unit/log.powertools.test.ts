// Log lines through Powertools Logger: the local shape, the Lambda context and cold start on
// each line of an invocation, our context keys, and the no-values redaction (OBS-1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { lambdaLogContext } from '../../shared/observability/lambda.ts';
import { captureLogger } from '../../harness/logs.ts';
import { METRIC } from '../../shared/observability/metrics.ts';

// Read when the process's Powertools logger is first built, which is on first use, below.
process.env['AWS_LAMBDA_INITIALIZATION_TYPE'] = 'on-demand';
process.env['POWERTOOLS_LOGGER_LOG_EVENT'] = 'true';

const SECRET = 'hunter2-S3CR3T-do-not-log';
const KEYS = {
  runtimeUID: 'uid-1',
  planDigest: 'sha256:abc',
  rollout: 'r-1',
  runId: 'run-1',
  step: 'resolve',
  messageId: 'm-1',
  group: 'g-1',
};

function lambdaContext(requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'aicr-control-plane-dev-resolve',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:aicr-control-plane-dev-resolve',
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/aicr-control-plane-dev-resolve',
    logStreamName: 'stream',
    getRemainingTimeInMillis: () => 60_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

// Runs first: the process's logger keeps the last invocation's context, as a warm container does.
test('outside Lambda a line is one JSON object with level, message, timestamp, service and our keys', () => {
  const { log, lines, records } = captureLogger('info');
  log.debug('below the level');
  log.child(KEYS).info('status written', { attempt: 2, fields: ['spec.aicrVersion'], empty: undefined });
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0] ?? '', /\n/);
  const r = records()[0] ?? {};
  assert.deepEqual(Object.keys(r).slice(0, 4), ['level', 'message', 'timestamp', 'service']);
  assert.equal(r['level'], 'INFO');
  assert.equal(r['message'], 'status written');
  assert.equal(r['service'], 'aicr-control-plane');
  assert.equal(new Date(String(r['timestamp'])).toISOString(), r['timestamp']);
  assert.deepEqual(
    { ...r, timestamp: undefined },
    {
      level: 'INFO',
      message: 'status written',
      timestamp: undefined,
      service: 'aicr-control-plane',
      sampling_rate: 0,
      ...KEYS,
      attempt: 2,
      fields: ['spec.aicrVersion'],
    },
  );
  assert.equal('function_name' in r || 'cold_start' in r, false, 'no Lambda keys outside Lambda');
});

test('in Lambda every line carries the function name, request ID and cold start, with our keys', async () => {
  const { log, records } = captureLogger('debug');
  const handler = middy<unknown, unknown>()
    .use(lambdaLogContext())
    .handler(async () => {
      const item = log.child(KEYS);
      item.debug('received');
      item.warn('step failed', { outcome: 'retry-after' });
    });
  await handler({}, lambdaContext('req-1'));
  await handler({}, lambdaContext('req-2'));
  const lines = records();
  assert.equal(lines.length, 4);
  for (const r of lines) {
    assert.equal(r['function_name'], 'aicr-control-plane-dev-resolve');
    assert.equal(r['function_arn'], 'arn:aws:lambda:us-east-1:123456789012:function:aicr-control-plane-dev-resolve');
    for (const [k, v] of Object.entries(KEYS)) assert.equal(r[k], v, k);
  }
  assert.deepEqual(
    lines.map((r) => [r['function_request_id'], r['cold_start'], r['level']]),
    [
      ['req-1', true, 'DEBUG'],
      ['req-1', true, 'WARN'],
      ['req-2', false, 'DEBUG'],
      ['req-2', false, 'WARN'],
    ],
  );
});

test('OBS-1 sensitive field names are redacted through Powertools, in an invocation too; the event is never logged', async () => {
  const { log, lines, records } = captureLogger('debug');
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    written.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    const handler = middy<unknown, unknown>()
      .use(lambdaLogContext())
      .handler(async () => {
        log.child({ runtimeUID: 'u' }).info('refreshed', {
          token: SECRET,
          Authorization: SECRET,
          registryPassword: SECRET,
          values: SECRET,
          privateKey: SECRET,
          kept: 'ok',
        });
      });
    await handler({ body: SECRET }, lambdaContext('req-3'));
  } finally {
    process.stdout.write = write;
  }
  assert.equal(lines.join('\n').includes(SECRET), false);
  assert.equal(written.join('').includes(SECRET), false, 'the invocation event is not logged');
  const r = records()[0] ?? {};
  for (const k of ['token', 'Authorization', 'registryPassword', 'values', 'privateKey'])
    assert.equal(r[k], '[redacted]', k);
  assert.equal(r['kept'], 'ok');
  assert.equal(r['runtimeUID'], 'u');
  assert.equal(r['function_request_id'], 'req-3');
});

test('a metric is one line in embedded metric format, its value kept though its name looks sensitive; any other value under that name is still redacted', () => {
  const { log, records } = captureLogger();
  const name = 'aicr_operator_registry_token_expiry_timestamp_seconds';
  log.child({ runtimeUID: 'u' }).metric({ metric: METRIC.tokenExpiry, value: 1_764_600_000 });
  log.info('not a metric', { [name]: SECRET });
  const [metric, other] = records();
  assert.equal(metric?.['message'], 'metric');
  assert.equal(metric?.[name], 1_764_600_000);
  assert.equal(metric?.['runtimeUID'], 'u');
  const emf = metric?.['_aws'] as { Timestamp: number; CloudWatchMetrics: unknown };
  assert.ok(emf.Timestamp > 0);
  assert.deepEqual(emf.CloudWatchMetrics, [
    { Namespace: 'aicr-control-plane', Dimensions: [['service']], Metrics: [{ Name: name, Unit: 'Seconds' }] },
  ]);
  assert.equal(other?.[name], '[redacted]');
});

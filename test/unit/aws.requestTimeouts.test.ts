// AWS requests when the network path is gone: each SDK attempt has a connect and a total timeout
// (the total one thrown, not only logged), the SDK's retries end before the invocation's
// deadline, and eks:DescribeCluster, which is signed by hand, has the same connect timeout.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import {
  AWS_CONNECT_TIMEOUT_MS,
  AWS_END_MARGIN_MS,
  AWS_MAX_ATTEMPTS,
  AWS_REQUEST_TIMEOUT_MS,
  attemptTimeoutMs,
  awsClientOptions,
} from '../../shared/awsRequestTimeouts.ts';
import { DEADLINE_RESERVE_MS, withDeadline } from '../../shared/deadline.ts';
import { DeadlineError } from '../../shared/errors.ts';
import { ClusterDescribeError, describeEksCluster } from '../../shared/kube/eksDescribe.ts';
import { silentServer } from '../helpers/silentServer.ts';

// Takes the TCP connection and never answers: a dropped path beyond the first hop, or a TLS
// handshake that never completes.
const silent = await silentServer();
const { port } = silent;
after(() => silent.close());

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

test('every SDK client gets a connect timeout, a total timeout that throws, and a bounded number of attempts', () => {
  const options = awsClientOptions();
  assert.deepEqual(options.requestHandler, {
    connectionTimeout: AWS_CONNECT_TIMEOUT_MS,
    requestTimeout: AWS_REQUEST_TIMEOUT_MS,
    throwOnRequestTimeout: true,
  });
  assert.equal(options.maxAttempts, AWS_MAX_ATTEMPTS);
  assert.ok(AWS_CONNECT_TIMEOUT_MS < AWS_REQUEST_TIMEOUT_MS);
});

test("an attempt's total timeout is its own outside a deadline, what the invocation has left inside one, and refused when nothing is left", async () => {
  assert.equal(attemptTimeoutMs(), AWS_REQUEST_TIMEOUT_MS);
  await withDeadline(60_000, () => Promise.resolve(assert.equal(attemptTimeoutMs(), AWS_REQUEST_TIMEOUT_MS)));
  await withDeadline(AWS_END_MARGIN_MS + 2_000, () => {
    const ms = attemptTimeoutMs();
    assert.ok(ms > 1_900 && ms <= 2_000, `got ${ms}`);
    return Promise.resolve();
  });
  await withDeadline(AWS_END_MARGIN_MS - 1, () =>
    Promise.resolve(assert.throws(() => attemptTimeoutMs(), DeadlineError)),
  );
});

test("an AWS endpoint that never answers ends the SDK's attempts and retries before the invocation's deadline, with a DeadlineError", async () => {
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials,
    ...awsClientOptions(),
  });
  const deadlineMs = AWS_END_MARGIN_MS + 1_500;
  const started = Date.now();
  const err = await withDeadline(deadlineMs, () =>
    client.send(new SendMessageCommand({ QueueUrl: `http://127.0.0.1:${port}/000000000000/q`, MessageBody: 'x' })),
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  const took = Date.now() - started;
  client.destroy();
  assert.ok(err instanceof DeadlineError, `got ${String(err)}`);
  assert.match(err.message, /too little time left in this invocation for an aws request; handed to a retry/);
  assert.ok(took >= 1_400 && took < deadlineMs - AWS_END_MARGIN_MS / 2, `ended after ${took} ms`);
});

test('an EKS API whose TLS handshake never completes fails eks:DescribeCluster at the AWS connect timeout, naming the endpoint', async () => {
  const started = Date.now();
  const err = await describeEksCluster('gpu-b', {
    region: 'us-east-1',
    credentials: () => Promise.resolve(credentials),
    apiUrl: `https://127.0.0.1:${port}`,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const took = Date.now() - started;
  assert.ok(err instanceof ClusterDescribeError, `got ${String(err)}`);
  assert.equal(
    err.message,
    `cluster gpu-b: eks:DescribeCluster at 127.0.0.1:${port} did not answer (connect timed out after ${AWS_CONNECT_TIMEOUT_MS / 1000} s); check the functions' route to the EKS API (NAT or an eks VPC endpoint)`,
  );
  assert.ok(took >= AWS_CONNECT_TIMEOUT_MS - 100 && took < AWS_CONNECT_TIMEOUT_MS + 1_000, `ended after ${took} ms`);
});

test('eks:DescribeCluster near the deadline is cut short to end before the reserve', async () => {
  const started = Date.now();
  const err = await withDeadline(DEADLINE_RESERVE_MS + 800, () =>
    describeEksCluster('gpu-b', {
      region: 'us-east-1',
      credentials: () => Promise.resolve(credentials),
      apiUrl: `http://127.0.0.1:${port}`,
    }),
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ClusterDescribeError, `got ${String(err)}`);
  assert.match(err.message, /did not answer \(no answer within 0\.\d s\)/);
  assert.ok(Date.now() - started < 1_500);
});

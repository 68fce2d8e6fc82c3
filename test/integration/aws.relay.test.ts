// Delayed delivery on the AWS path: FIFO queues cannot delay one message, so a delayed send
// goes to a standard delay queue and the relay function (functions/relay.ts) forwards it to
// the step's FIFO queue once due, or puts it back for the rest of a long delay.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SqsProducer } from '../../shared/aws/sqsProducer.ts';
import { encodeEnvelope } from '../../shared/aws/envelope.ts';
import type { Context, SQSRecord } from 'aws-lambda';
import { awsClientConfig, resetMoto } from '../../harness/env.ts';
import {
  createQueue,
  createStepQueues,
  queueDepth,
  SqsLambdaDriver,
  type SqsHandler,
  type TestQueue,
} from '../../harness/sqsDriver.ts';

const sqs = new SQSClient(awsClientConfig());
let fifo: TestQueue;
let delay: TestQueue;
let handler: SqsHandler;

before(async () => {
  await resetMoto();
  delay = await createQueue(sqs, 'aicr-delay');
  const steps = await createStepQueues((base) => createQueue(sqs, `${base}.fifo`));
  fifo = steps.byQueue['resolve'] as TestQueue;
  Object.assign(process.env, { ...steps.settings, AICR_DELAY_QUEUE_URL: delay.url, LOG_LEVEL: 'silent' });
  ({ handler } = (await import('../../functions/relay.ts')) as { handler: SqsHandler });
});

test('a delayed message waits on the delay queue, then reaches its FIFO queue with its group', async () => {
  const producer = new SqsProducer(sqs, { fifoQueueUrl: { resolve: fifo.url }, delayQueueUrl: delay.url });
  const sent = Date.now();
  await producer.send({
    step: 'resolve',
    group: 'runtime-u1',
    dedupId: 'u1/resolve/retry/1',
    body: '{"k":1}',
    delayMs: 1500,
  });
  const early = await sqs.send(new ReceiveMessageCommand({ QueueUrl: delay.url, WaitTimeSeconds: 0 }));
  assert.equal(early.Messages?.length ?? 0, 0, 'not visible before its delay');
  const relay = new SqsLambdaDriver(sqs, delay, handler);
  await relay.runUntil('the message on the FIFO queue', async () => (await queueDepth(sqs, fifo)) === 1, 10_000);
  assert.ok(Date.now() - sent >= 1500);
  const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: fifo.url, MessageSystemAttributeNames: ['All'] }));
  const m = got.Messages?.[0];
  assert.equal(m?.Body, '{"k":1}');
  assert.equal(m?.Attributes?.['MessageGroupId'], 'runtime-u1');
  assert.equal(m?.Attributes?.['MessageDeduplicationId'], 'u1/resolve/retry/1');
});

function envelopeRecord(body: string): SQSRecord {
  const attributes = {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 's',
    ApproximateFirstReceiveTimestamp: '0',
  };
  return {
    messageId: 'm',
    receiptHandle: 'r',
    body,
    attributes,
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: delay.arn,
    awsRegion: 'us-east-1',
  };
}

test('a message due after the 15-minute SQS limit goes back on the delay queue for the rest', async () => {
  await resetMoto();
  fifo = await createQueue(sqs, 'aicr-resolve.fifo');
  delay = await createQueue(sqs, 'aicr-delay');
  const producer = new SqsProducer(sqs, { fifoQueueUrl: { resolve: fifo.url }, delayQueueUrl: delay.url });
  await producer.send({ step: 'resolve', group: 'g', dedupId: 'd', body: 'b', delayMs: 3_600_000 });
  assert.equal(await queueDepth(sqs, delay), 1, 'the first leg waits (at most 900 s) on the delay queue');
  // The relay receives it 900 s later with most of the hour still to go.
  const pending = encodeEnvelope({
    step: 'resolve',
    group: 'g',
    dedupId: 'd',
    body: 'b',
    notBefore: Date.now() + 2_700_000,
  });
  const out = await handler({ Records: [envelopeRecord(pending)] }, {} as Context);
  assert.deepEqual(out.batchItemFailures, []);
  assert.equal(await queueDepth(sqs, delay), 2, 'the not-yet-due message went back on the delay queue');
  assert.equal(await queueDepth(sqs, fifo), 0, 'and did not reach the FIFO queue early');
});

test('a malformed envelope is a failed record', async () => {
  const out = await handler({ Records: [envelopeRecord('not json')] }, {} as Context);
  assert.deepEqual(out.batchItemFailures, [{ itemIdentifier: 'm' }]);
});

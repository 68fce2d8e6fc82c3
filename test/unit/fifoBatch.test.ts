// FIFO batches: in order per group; after a failure the rest of that group is reported
// failed; other groups go on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../shared/aws/fifoBatch.ts';
import { sqsDedupId } from '../../shared/aws/sqsProducer.ts';

function record(id: string, group: string): SQSRecord {
  return {
    messageId: id,
    receiptHandle: id,
    body: id,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 's',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: group,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn',
    awsRegion: 'us-east-1',
  };
}

test('a failure fails the rest of its group, in batch order, and spares other groups', async () => {
  const seen: string[] = [];
  const records = [record('a1', 'a'), record('b1', 'b'), record('a2', 'a'), record('a3', 'a'), record('b2', 'b')];
  const out = await processFifoBatch(records, (r) => {
    seen.push(r.messageId);
    return r.messageId === 'a2' ? Promise.reject(new Error('x')) : Promise.resolve();
  });
  assert.deepEqual(
    out.batchItemFailures.map((f) => f.itemIdentifier),
    ['a2', 'a3'],
  );
  assert.ok(!seen.includes('a3'), 'nothing after a failure in its group runs');
  assert.deepEqual(
    seen.filter((id) => id.startsWith('b')),
    ['b1', 'b2'],
  );
  assert.ok(seen.indexOf('a1') < seen.indexOf('a2'), 'a group runs in order');
});

test('an all-good batch reports no failures', async () => {
  const out = await processFifoBatch([record('x', 'g')], () => Promise.resolve());
  assert.deepEqual(out.batchItemFailures, []);
});

test('deduplication IDs SQS would refuse are replaced by their digest', () => {
  assert.equal(sqsDedupId('uid/resolve/42'), 'uid/resolve/42');
  const long = 'x'.repeat(200);
  assert.match(sqsDedupId(long), /^[0-9a-f]{64}$/);
  assert.match(sqsDedupId('has space'), /^[0-9a-f]{64}$/);
});

test('a configuration error fails the whole invocation instead of hiding as failed records', async () => {
  const { createStepHandler } = await import('../../shared/aws/stepHandler.ts');
  const { ConfigError } = await import('../../shared/aws/environment.ts');
  const handler = createStepHandler({}, () => {
    throw new ConfigError('unknown setting AICR_TYPO');
  });
  await assert.rejects(handler({ Records: [record('a', 'g')] }), /AICR_TYPO/);
});

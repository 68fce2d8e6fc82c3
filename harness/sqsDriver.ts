// Plays the Lambda event source mapping for tests: receives from moto's SQS, calls the real
// handler with a real SQSEvent, and deletes what did not fail. Failed records come back after
// the visibility timeout, and moto dead-letters them after maxReceiveCount, so retries, group
// blocking and dead letters are exercised for real.
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { QUEUE_NAMES, queueSettings } from '../shared/steps/table.ts';

export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

export interface Delivery {
  readonly messageId: string;
  readonly body: string;
  readonly group: string;
  readonly receiveCount: number;
  readonly failed: boolean;
  readonly batch: number;
}

export interface TestQueue {
  readonly url: string;
  readonly arn: string;
}

export async function createQueue(
  sqs: SQSClient,
  name: string,
  attributes: Record<string, string> = {},
): Promise<TestQueue> {
  const fifo = name.endsWith('.fifo') ? { FifoQueue: 'true' } : {};
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { ...fifo, ...attributes } }),
  );
  if (!QueueUrl) throw new Error(`queue ${name} was not created`);
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  const arn = attrs.Attributes?.['QueueArn'];
  if (!arn) throw new Error(`queue ${name} has no ARN`);
  return { url: QueueUrl, arn };
}

/** A FIFO queue with its dead-letter queue, as serverless.yml declares them (shorter timeouts). */
export async function createFifoWithDlq(
  sqs: SQSClient,
  base: string,
  opts: { visibilitySeconds: number; maxReceiveCount: number },
): Promise<{ queue: TestQueue; dlq: TestQueue }> {
  const dlq = await createQueue(sqs, `${base}-dlq.fifo`);
  const queue = await createQueue(sqs, `${base}.fifo`, {
    VisibilityTimeout: String(opts.visibilitySeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: opts.maxReceiveCount }),
  });
  return { queue, dlq };
}

/**
 * One FIFO queue per queue of the step table, made by `make` from its base name (aicr-<queue>),
 * and the settings that name them: a function needing every step's queue is configured from the
 * table, so a step added to it cannot be left out of a test.
 */
export async function createStepQueues(
  make: (base: string) => Promise<TestQueue>,
): Promise<{ byQueue: Record<string, TestQueue>; settings: Record<string, string> }> {
  const made = await Promise.all(QUEUE_NAMES.map(async (q) => [q, await make(`aicr-${q}`)] as const));
  return {
    byQueue: Object.fromEntries(made),
    settings: Object.fromEntries(made.map(([q, queue]) => [queueSettings(q).url, queue.url])),
  };
}

function pick(a: Record<string, string>, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.flatMap((k) => (a[k] ? [[k, a[k]]] : [])));
}

function toRecord(m: Message, queue: TestQueue): SQSRecord {
  const a: Record<string, string> = m.Attributes ?? {};
  return {
    messageId: m.MessageId ?? '',
    receiptHandle: m.ReceiptHandle ?? '',
    body: m.Body ?? '',
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
      ...pick(a, ['ApproximateReceiveCount', 'SentTimestamp', 'SenderId', 'ApproximateFirstReceiveTimestamp']),
      ...pick(a, ['MessageGroupId', 'MessageDeduplicationId', 'SequenceNumber']),
    },
    messageAttributes: {},
    md5OfBody: m.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queue.arn,
    awsRegion: process.env['AWS_REGION'] ?? 'us-east-1',
  };
}

const context = {
  functionName: 'test',
  awsRequestId: 'test',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

export class SqsLambdaDriver {
  private readonly sqs: SQSClient;
  private readonly queue: TestQueue;
  private readonly handler: SqsHandler;
  private readonly batchSize: number;
  readonly deliveries: Delivery[] = [];
  private batches = 0;

  constructor(sqs: SQSClient, queue: TestQueue, handler: SqsHandler, batchSize = 10) {
    this.sqs = sqs;
    this.queue = queue;
    this.handler = handler;
    this.batchSize = batchSize;
  }

  /** One receive, one invocation; returns how many records were handled. */
  async pollOnce(waitSeconds = 1): Promise<number> {
    const got = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queue.url,
        MaxNumberOfMessages: this.batchSize,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = got.Messages ?? [];
    if (messages.length === 0) return 0;
    const records = messages.map((m) => toRecord(m, this.queue));
    const result = await this.handler({ Records: records }, context);
    const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
    const batch = ++this.batches;
    for (const r of records) {
      this.deliveries.push({
        messageId: r.messageId,
        body: r.body,
        group: r.attributes.MessageGroupId ?? '',
        receiveCount: Number(r.attributes.ApproximateReceiveCount),
        failed: failed.has(r.messageId),
        batch,
      });
    }
    const done = records.filter((r) => !failed.has(r.messageId));
    if (done.length > 0) {
      await this.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.queue.url,
          Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
    }
    return records.length;
  }

  /** Polls until the probe answers true. */
  async runUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await this.pollOnce();
    }
  }
}

export async function queueDepth(sqs: SQSClient, queue: TestQueue): Promise<number> {
  const attrs = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.url,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(attrs.Attributes ?? {}).reduce((n, v) => n + Number(v), 0);
}

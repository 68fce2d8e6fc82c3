// The SQS adapter of the queue port. Immediate messages go to the step's FIFO queue with the
// runtime as MessageGroupId. FIFO queues cannot delay one message, so delayed ones (backoff,
// retry-after) go to a standard delay queue as an envelope that the relay function forwards
// once due.
import { createHash } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, OutgoingMessage, QueueProducer, SendResult } from '../queue/port.ts';
import { queueOf } from '../steps/table.ts';
import { encodeEnvelope } from './envelope.ts';

export interface SqsRoutes {
  /** FIFO queue URL by queue name (the step table's `queue`). */
  readonly fifoQueueUrl: Readonly<Record<string, string>>;
  readonly delayQueueUrl: string;
  /** Dead-letter queue URL by queue name; where it is missing, SQS's own redrive dead-letters instead. */
  readonly dlqUrl?: Readonly<Record<string, string>>;
}

/** SQS's longest per-message delay on a standard queue. */
export const MAX_DELAY_SECONDS = 900;
const DEDUP_ALLOWED = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/** A deduplication ID SQS accepts: the ID itself when it fits, else a digest of it. */
export function sqsDedupId(id: string): string {
  return DEDUP_ALLOWED.test(id) ? id : createHash('sha256').update(id).digest('hex');
}

export interface LongTimers {
  arm(msg: OutgoingMessage): Promise<void>;
}

export class SqsProducer implements QueueProducer {
  private readonly sqs: SQSClient;
  private readonly routes: SqsRoutes;
  private readonly now: () => number;
  /** Delays beyond the delay queue's 15 minutes go here when set; else they hop on the delay queue. */
  private readonly longTimers: LongTimers | undefined;

  constructor(sqs: SQSClient, routes: SqsRoutes, now: () => number = Date.now, longTimers?: LongTimers) {
    this.sqs = sqs;
    this.routes = routes;
    this.now = now;
    this.longTimers = longTimers;
  }

  async send(msg: OutgoingMessage): Promise<SendResult> {
    const delayMs = msg.delayMs ?? 0;
    if (delayMs > MAX_DELAY_SECONDS * 1000 && this.longTimers) {
      await this.longTimers.arm(msg);
      return { deduplicated: false };
    }
    if (delayMs > 0) {
      if (!this.routes.delayQueueUrl)
        throw new Error(`no delay queue configured (AICR_DELAY_QUEUE_URL) for a delayed send to step ${msg.step}`);
      await this.sqs.send(
        new SendMessageCommand({
          QueueUrl: this.routes.delayQueueUrl,
          MessageBody: encodeEnvelope({
            step: msg.step,
            group: msg.group,
            dedupId: msg.dedupId,
            body: msg.body,
            notBefore: this.now() + delayMs,
          }),
          DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(delayMs / 1000)),
        }),
      );
      return { deduplicated: false };
    }
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.fifoUrl(msg.step),
        MessageBody: msg.body,
        MessageGroupId: msg.group,
        MessageDeduplicationId: sqsDedupId(msg.dedupId),
      }),
    );
    // SQS accepts a duplicate silently, so whether it was dropped is not known here.
    return { deduplicated: false };
  }

  async deadLetter(msg: DeadLetter): Promise<void> {
    const url = this.routes.dlqUrl?.[queueOf(msg.step)];
    if (!url)
      throw new Error(
        `no dead-letter queue configured for step ${msg.step}; the queue's redrive policy takes the message`,
      );
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: msg.body,
        MessageGroupId: msg.group,
        MessageDeduplicationId: sqsDedupId(`dead/${msg.dedupId}`),
      }),
    );
  }

  private fifoUrl(step: string): string {
    const url = this.routes.fifoQueueUrl[queueOf(step)];
    if (!url) throw new Error(`no queue URL configured for step ${step}`);
    return url;
  }
}

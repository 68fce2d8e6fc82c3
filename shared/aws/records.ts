import type { SQSRecord } from 'aws-lambda';
import type { ReceivedMessage } from '../queue/port.ts';

/** An SQS record as the queue port describes a delivery. */
export function toReceivedMessage(r: SQSRecord): ReceivedMessage {
  return {
    id: r.messageId,
    group: r.attributes.MessageGroupId ?? '',
    dedupId: r.attributes.MessageDeduplicationId ?? r.messageId,
    body: r.body,
    receiveCount: Number(r.attributes.ApproximateReceiveCount) || 1,
    sentAt: Number(r.attributes.SentTimestamp) || 0,
  };
}

// Processes an SQS FIFO batch the way ordering requires: each message group in order, and once
// a record fails, it and every later record of its group are reported failed so SQS
// redelivers them in order. Other groups go on, in parallel.
import type { SQSBatchItemFailure, SQSBatchResponse, SQSRecord } from 'aws-lambda';

export async function processFifoBatch(
  records: readonly SQSRecord[],
  handle: (r: SQSRecord) => Promise<void>,
): Promise<SQSBatchResponse> {
  const groups = new Map<string, SQSRecord[]>();
  for (const r of records) {
    const g = r.attributes.MessageGroupId ?? r.messageId;
    groups.set(g, [...(groups.get(g) ?? []), r]);
  }
  const failed = await Promise.all([...groups.values()].map((list) => processGroup(list, handle)));
  const ids = new Set(failed.flat());
  // Reported in the batch's own order, which is the order SQS delivered.
  const batchItemFailures: SQSBatchItemFailure[] = records
    .filter((r) => ids.has(r.messageId))
    .map((r) => ({ itemIdentifier: r.messageId }));
  return { batchItemFailures };
}

async function processGroup(list: readonly SQSRecord[], handle: (r: SQSRecord) => Promise<void>): Promise<string[]> {
  for (const [i, record] of list.entries()) {
    try {
      await handle(record);
    } catch {
      return list.slice(i).map((r) => r.messageId);
    }
  }
  return [];
}

// Forwards delayed messages from the standard delay queue to their FIFO queue once due. A
// message not yet due is sent on again with the rest of its delay, which the producer routes
// (delay queue, or a long timer beyond SQS's 15 minutes).
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { errorFields } from '../classify.ts';
import type { Logger } from '../observability/log.ts';
import { METRIC } from '../observability/metrics.ts';
import type { QueueProducer } from '../queue/port.ts';
import { decodeEnvelope } from './envelope.ts';

export interface RelayDeps {
  readonly producer: QueueProducer;
  readonly log: Logger;
  readonly now: () => number;
}

export function createRelayHandler(deps: () => RelayDeps): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const { producer, log, now } = deps();
    const batchItemFailures: SQSBatchItemFailure[] = [];
    for (const record of event.Records) {
      try {
        const env = decodeEnvelope(record.body);
        const remaining = env.notBefore - now();
        if (remaining <= 0) log.metric({ metric: METRIC.relayLateness, value: -remaining / 1000 });
        await producer.send({
          step: env.step,
          group: env.group,
          dedupId: env.dedupId,
          body: env.body,
          ...(remaining > 0 ? { delayMs: remaining } : {}),
        });
      } catch (err) {
        log.error('relay failed', { messageId: record.messageId, ...errorFields(err) });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}

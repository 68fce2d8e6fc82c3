import type { Config } from '../config.ts';
import type { SqsRoutes } from './sqsProducer.ts';

/** Where each step's messages and the delayed ones go, from the function's configuration. */
export function sqsRoutes(config: Config): SqsRoutes {
  return { fifoQueueUrl: { resolve: config.AICR_RESOLVE_QUEUE_URL }, delayQueueUrl: config.AICR_DELAY_QUEUE_URL };
}

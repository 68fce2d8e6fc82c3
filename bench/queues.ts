// Moto queues for every step queue of the table, as serverless.yml makes them, with the AICR_*
// settings the functions read. The forwarder wakes every step a change concerns, so a bench that
// drives only one of them still needs somewhere to send the others' messages.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { queueSettings, STEP_TABLE } from '../shared/steps/table.ts';
import { createFifoWithDlq, createQueue, type TestQueue } from '../harness/sqsDriver.ts';

export interface StepQueues {
  readonly fifo: ReadonlyMap<string, TestQueue>;
  readonly delay: TestQueue;
}

export async function stepQueues(sqs: SQSClient): Promise<StepQueues> {
  const fifo = new Map<string, TestQueue>();
  for (const queue of new Set(STEP_TABLE.map((r) => r.queue))) {
    const { queue: q } = await createFifoWithDlq(sqs, `aicr-${queue}`, { visibilitySeconds: 30, maxReceiveCount: 5 });
    fifo.set(queue, q);
    process.env[queueSettings(queue).url] = q.url;
  }
  const delay = await createQueue(sqs, 'aicr-delay');
  process.env['AICR_DELAY_QUEUE_URL'] = delay.url;
  return { fifo, delay };
}

export function fifoUrls(queues: StepQueues): Record<string, string> {
  return Object.fromEntries([...queues.fifo].map(([name, q]) => [name, q.url]));
}

export function queueNamed(queues: StepQueues, name: string): TestQueue {
  const q = queues.fifo.get(name);
  if (!q) throw new Error(`no queue ${name} in the step table`);
  return q;
}

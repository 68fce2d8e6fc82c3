// The forwarder and resolve functions as Lambda runs them, on the emulator's SQS queues made
// from the step table, against whatever cluster the given settings name.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import type { WindowResult } from '../../shared/aws/forwarderWindow.ts';
import { FORWARDER_CHECKPOINT } from '../../shared/api/constants.ts';
import { checkpointName, watchedBy } from '../../shared/forwarder/watched.ts';
import { resetMoto } from '../../harness/env.ts';
import { kubectl } from '../../harness/runtime.ts';
import {
  createFifoWithDlq,
  createQueue,
  createStepQueues,
  type SqsHandler,
  type TestQueue,
} from '../../harness/sqsDriver.ts';

export interface AwsFunctions {
  /** The resolve step's queue. */
  readonly queue: TestQueue;
  readonly forwarder: (event: unknown, context: Context) => Promise<WindowResult>;
  readonly resolve: SqsHandler;
}

/** Settings are the functions' environment besides the queues (cluster access, forwarder window). */
export async function forwarderAndResolve(
  sqs: SQSClient,
  settings: Readonly<Record<string, string>>,
): Promise<AwsFunctions> {
  await resetMoto();
  const delay = await createQueue(sqs, 'aicr-delay');
  const steps = await createStepQueues(
    async (base) => (await createFifoWithDlq(sqs, base, { visibilitySeconds: 1, maxReceiveCount: 3 })).queue,
  );
  Object.assign(process.env, { ...steps.settings, AICR_DELAY_QUEUE_URL: delay.url, LOG_LEVEL: 'silent', ...settings });
  const { handler: forwarder } = (await import('../../functions/forwarder.ts')) as {
    handler: AwsFunctions['forwarder'];
  };
  const { handler: resolve } = (await import('../../functions/resolve.ts')) as { handler: SqsHandler };
  return { queue: steps.byQueue['resolve'] as TestQueue, forwarder, resolve };
}

/** Removes every watched kind's checkpoint, so the next forwarder window starts by listing; `kubectlIn` picks the cluster. */
export async function clearForwarderCheckpoints(
  kubectlIn: (...args: string[]) => Promise<string> = kubectl,
): Promise<void> {
  await kubectlIn(
    'delete',
    'configmap',
    '-n',
    FORWARDER_CHECKPOINT.namespace,
    ...watchedBy().map(checkpointName),
    '--ignore-not-found',
  );
}

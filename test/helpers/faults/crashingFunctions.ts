// FAULT HARNESS, test only (FLT-1): the AWS path in a process of its own, with the faults of
// injected.ts. The forwarder sends to moto's SQS FIFO queues; the rollout function's handler and
// the relay's, as Lambda calls them, take their messages (test/helpers/sqsDriver.ts). When the
// process is killed, the messages it had received come back after their visibility timeout, as
// they would after a Lambda container died, and count towards the queue's redrive limit.
// The test creates the queues and names them in the environment, as the deployment does.
// Usage: node --import tsx crashingFunctions.ts, with the settings of injected.ts.
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createRelayHandler } from '../../../shared/aws/relay.ts';
import { relayDeps } from '../../../shared/aws/relayDeps.ts';
import { buildStepDeps } from '../../../shared/aws/stepDeps.ts';
import { createStepHandler } from '../../../shared/aws/stepHandler.ts';
import { MemoryCheckpoint } from '../../../shared/forwarder/checkpoint.ts';
import { COALESCE_MS, Forwarder } from '../../../shared/forwarder/forwarder.ts';
import { watchedBy } from '../../../shared/forwarder/watched.ts';
import { senderOf } from '../../../shared/local/controlPlane.ts';
import { queueSettings, STEP_TABLE } from '../../../shared/steps/table.ts';
import { runRollout } from '../../../shared/steps/rollout/index.ts';
import { forwarderKube, stepKube } from '../controlPlane.ts';
import { awsClientConfig } from '../env.ts';
import { SCALED_TIMINGS } from '../resolved.ts';
import { SqsLambdaDriver, type SqsHandler, type TestQueue } from '../sqsDriver.ts';
import { crashing, handleAgain, holdBackMs } from './injected.ts';

const sqs = new SQSClient(awsClientConfig());
const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');

async function queueAt(url: string | undefined): Promise<TestQueue> {
  if (!url) throw new Error('the fault harness needs the queues the test made, named in its environment');
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: attrs.Attributes?.['QueueArn'] ?? '' };
}

const base = buildStepDeps('rollout');
const producer = senderOf(base.producer, holdBackMs);
const deps = { ...base, producer, kube: crashing(stepKube('rollout')), timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 } };
const step = createStepHandler({ rollout: runRollout }, () => deps);
// A message handled twice, as SQS's at-least-once delivery may hand it to two containers.
const rolloutHandler: SqsHandler = async (event, context) => {
  const result = await step(event, context);
  if (handleAgain()) await step(event, context);
  return result;
};
const relay = createRelayHandler(() => ({ ...relayDeps(), producer: senderOf(relayDeps().producer, holdBackMs) }));
const drivers = [
  new SqsLambdaDriver(sqs, await queueAt(process.env[queueSettings('rollout').url]), rolloutHandler),
  new SqsLambdaDriver(sqs, await queueAt(process.env['AICR_DELAY_QUEUE_URL']), relay),
];
const forwarders = watchedBy(ROLLOUT_ONLY).map(
  (w) => new Forwarder({ kube: crashing(forwarderKube()), producer, log: base.log, checkpoint: new MemoryCheckpoint(), table: ROLLOUT_ONLY, coalesceMs: COALESCE_MS, watchTimeoutSeconds: 30 }, w),
);
let polling = true;
process.on('SIGTERM', () => {
  polling = false;
  for (const f of forwarders) f.stop();
});
const pollers = drivers.map(async (d) => {
  while (polling) {
    // A failed receive or a failed invocation must not end the loop, as it would not end Lambda's polling.
    await d.pollOnce(1).catch((err: unknown) => base.log.warn('sqs path: a poll failed', { error: err instanceof Error ? err.message : String(err) }));
  }
});
await Promise.all([...pollers, ...forwarders.map((f) => f.run())]);

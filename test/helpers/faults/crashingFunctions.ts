// FAULT HARNESS, test only (FLT-1): the AWS path in a process of its own, with the faults of
// injected.ts. The forwarder sends to moto's SQS FIFO queues; the handlers of the rollout and
// drift-check functions (the two that act on a rollout; drift-check reports the inventory Ready
// waits for) and of the relay, as Lambda calls them, take their messages (harness/sqsDriver.ts). When the
// process is killed, the messages it had received come back after their visibility timeout, as
// they would after a Lambda container died, and count towards the queue's redrive limit.
// The test creates the queues and names them in the environment, as the deployment does.
// Usage: node crashingFunctions.ts (Node 22 strips the types), with the settings of injected.ts.
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
import { runDriftCheck } from '../../../shared/steps/driftCheck/index.ts';
import type { StepRunner } from '../../../shared/look/contract.ts';
import { forwarderKube, stepKube } from '../../../harness/controlPlane.ts';
import { awsClientConfig } from '../../../harness/env.ts';
import { SCALED_TIMINGS } from '../resolved.ts';
import { SqsLambdaDriver, type SqsHandler, type TestQueue } from '../../../harness/sqsDriver.ts';
import { crashing, handleAgain, holdBackMs } from './injected.ts';

const sqs = new SQSClient(awsClientConfig());
const STEPS = STEP_TABLE.filter((r) => ['rollout', 'drift-check'].includes(r.name));

async function queueAt(url: string | undefined): Promise<TestQueue> {
  if (!url) throw new Error('the fault harness needs the queues the test made, named in its environment');
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: attrs.Attributes?.['QueueArn'] ?? '' };
}

// Read by injected.ts as it loaded; the functions refuse settings they do not know.
for (const key of Object.keys(process.env)) if (key.startsWith('AICR_FAULT_')) Reflect.deleteProperty(process.env, key);
const base = buildStepDeps('rollout');
const producer = senderOf(base.producer, holdBackMs);
/** A step's function, as Lambda calls it, with its own identity behind the crashing port; each batch handled twice for a share. */
function stepFunction(step: string, runner: StepRunner): SqsHandler {
  const deps = {
    ...base,
    producer,
    kube: crashing(stepKube(step)),
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
  };
  const handle = createStepHandler({ [step]: runner }, () => deps);
  return async (event, context) => {
    const result = await handle(event, context);
    if (handleAgain()) await handle(event, context);
    return result;
  };
}
const relayHeldBack = { ...relayDeps(), producer: senderOf(relayDeps().producer, holdBackMs) };
const relay = createRelayHandler(() => relayHeldBack);
const drivers = [
  new SqsLambdaDriver(
    sqs,
    await queueAt(process.env[queueSettings('rollout').url]),
    stepFunction('rollout', runRollout),
  ),
  new SqsLambdaDriver(
    sqs,
    await queueAt(process.env[queueSettings('drift-check').url]),
    stepFunction('drift-check', runDriftCheck),
  ),
  new SqsLambdaDriver(sqs, await queueAt(process.env['AICR_DELAY_QUEUE_URL']), relay),
];
const forwarders = watchedBy(STEPS).map(
  (w) =>
    new Forwarder(
      {
        kube: crashing(forwarderKube()),
        producer,
        log: base.log,
        checkpoint: new MemoryCheckpoint(),
        table: STEPS,
        coalesceMs: COALESCE_MS,
        watchTimeoutSeconds: 30,
      },
      w,
    ),
);
let polling = true;
process.on('SIGTERM', () => {
  polling = false;
  for (const f of forwarders) f.stop();
});
const pollers = drivers.map(async (d) => {
  while (polling) {
    // A failed receive or a failed invocation must not end the loop, as it would not end Lambda's polling.
    await d
      .pollOnce(1)
      .catch((err: unknown) =>
        base.log.warn('sqs path: a poll failed', { error: err instanceof Error ? err.message : String(err) }),
      );
  }
});
await Promise.all([...pollers, ...forwarders.map((f) => f.run())]);

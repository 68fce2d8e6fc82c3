// First sighting on the SQS path: a new runtime's creation to its first conditions, through a
// forwarder already inside its window, the resolve queue on moto and the resolve function's
// handler fed by a long-polling driver. Before conflicts were re-run at once, a lost status race
// here waited out the 180 s visibility timeout; now it costs a re-read. The delay to the next
// forwarder window (up to a minute when none is running) is not part of this figure.
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsProducer } from '../shared/aws/sqsProducer.ts';
import { MemoryCheckpoint } from '../shared/forwarder/checkpoint.ts';
import { Forwarder } from '../shared/forwarder/forwarder.ts';
import { createLogger } from '../shared/observability/log.ts';
import { controlPlaneKube } from '../test/helpers/controlPlane.ts';
import { awsClientConfig, CONTROL_PLANE_USER, resetMoto, testEnv } from '../test/helpers/env.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../test/helpers/runtime.ts';
import { SqsLambdaDriver, type SqsHandler } from '../test/helpers/sqsDriver.ts';
import { fifoUrls, queueNamed, stepQueues } from './queues.ts';
import { summarise } from './latency.ts';

async function firstConditions(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await getRuntime())?.status?.conditions?.length === undefined) {
    if (Date.now() > deadline) throw new Error('no conditions within 60 s of creation');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function measureFirstSighting(runs = Number(process.env['BENCH_SIGHTINGS'] ?? 5)) {
  await ensureCrds();
  await deleteRuntime();
  await resetMoto();
  const sqs = new SQSClient(awsClientConfig());
  const queues = await stepQueues(sqs);
  Object.assign(process.env, { AICR_KUBECONFIG: testEnv().KUBECONFIG, AICR_KUBE_CONTEXT: CONTROL_PLANE_USER, LOG_LEVEL: 'silent' });
  const { handler } = (await import('../functions/resolve.ts')) as { handler: SqsHandler };
  const driver = new SqsLambdaDriver(sqs, queueNamed(queues, 'resolve'), handler);
  let polling = true;
  const poller = (async () => {
    while (polling) await driver.pollOnce(1);
  })();
  const forwarder = new Forwarder({ kube: controlPlaneKube(), producer: new SqsProducer(sqs, { fifoQueueUrl: fifoUrls(queues), delayQueueUrl: queues.delay.url }), log: createLogger({ level: 'silent' }), checkpoint: new MemoryCheckpoint(), watchTimeoutSeconds: 30 });
  const watching = forwarder.run();
  const samples: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      await deleteRuntime();
      const started = Date.now();
      await createRuntime({ aicrVersion: 'v1.1.0' });
      await firstConditions();
      samples.push(Date.now() - started);
    }
  } finally {
    forwarder.stop();
    polling = false;
    await Promise.all([watching, poller]);
    await deleteRuntime();
  }
  return { runs, ...summarise(samples), redeliveries: driver.deliveries.filter((d) => d.failed).length };
}

// First sighting on the SQS path: a new runtime's creation to its first conditions, through a
// forwarder already inside its window, the step queues on moto and every step's own handler fed
// by a long-polling driver, so the steps a first sighting wakes race for the shared summary as
// they do in AWS. A lost status race costs a re-read, not the 180 s visibility timeout, so the
// redeliveries are counted beside the latency. The delay to the next forwarder window (up to a
// minute when none is running) is not part of this figure.
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsProducer } from '../shared/aws/sqsProducer.ts';
import { MemoryCheckpoint } from '../shared/forwarder/checkpoint.ts';
import { Forwarder } from '../shared/forwarder/forwarder.ts';
import { createLogger } from '../shared/observability/log.ts';
import { controlPlaneKube } from '../harness/controlPlane.ts';
import { awsClientConfig, CONTROL_PLANE_USER, resetMoto, testEnv } from '../harness/env.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../harness/runtime.ts';
import { SqsLambdaDriver, type SqsHandler } from '../harness/sqsDriver.ts';
import { STEP_TABLE } from '../shared/steps/table.ts';
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
  Object.assign(process.env, {
    AICR_KUBECONFIG: testEnv().KUBECONFIG,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    LOG_LEVEL: 'silent',
  });
  const drivers: SqsLambdaDriver[] = [];
  for (const queue of new Set(STEP_TABLE.map((r) => r.queue))) {
    const { handler } = (await import(`../functions/${queue}.ts`)) as { handler: SqsHandler };
    drivers.push(new SqsLambdaDriver(sqs, queueNamed(queues, queue), handler));
  }
  let polling = true;
  const poller = Promise.all(
    drivers.map(async (driver) => {
      while (polling) await driver.pollOnce(1);
    }),
  );
  const forwarder = new Forwarder({
    kube: controlPlaneKube(),
    producer: new SqsProducer(sqs, { fifoQueueUrl: fifoUrls(queues), delayQueueUrl: queues.delay.url }),
    log: createLogger({ level: 'silent' }),
    checkpoint: new MemoryCheckpoint(),
    watchTimeoutSeconds: 30,
  });
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
  const deliveries = drivers.flatMap((d) => d.deliveries);
  return {
    runs,
    ...summarise(samples),
    handled: deliveries.length,
    redeliveries: deliveries.filter((d) => d.failed).length,
  };
}

export type Sighting = Awaited<ReturnType<typeof measureFirstSighting>>;

export function printSighting(f: Sighting): void {
  console.log(
    'first sighting on the SQS path (creation -> first conditions, forwarder in its window, ' +
      `every step's handler, ${f.runs} runtimes): p50 ${f.p50Ms} ms, max ${f.maxMs} ms, ` +
      `${f.handled} messages handled, ${f.redeliveries} redeliveries`,
  );
}

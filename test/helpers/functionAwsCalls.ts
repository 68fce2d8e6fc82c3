// One function's AWS calls, run in a process of its own as a Lambda container would run them: the
// function's environment is the one the packaged template gives it, its credentials (AWS_*) are
// those of its role, and each call goes through the code the function itself builds (its
// dependencies, its producer and timers, its ECR and EKS adapters). The calls Lambda makes on the
// function's behalf with the same role (polling its queue, writing its logs) are made here too.
// Usage: functionAwsCalls.ts <function> <results file>; IAM_PROBE_* variables name what the test
// set up for it. Results are written as JSON, one entry per call, never thrown.
import { writeFileSync } from 'node:fs';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { encodeEnvelope } from '../../shared/aws/envelope.ts';
import { forwarderDeps } from '../../shared/aws/forwarderDeps.ts';
import { createRelayHandler, type RelayDeps } from '../../shared/aws/relay.ts';
import { relayDeps } from '../../shared/aws/relayDeps.ts';
import { buildStepDeps } from '../../shared/aws/stepDeps.ts';
import type { QueueProducer } from '../../shared/queue/port.ts';
import { eventBridgeSink } from '../../shared/notifications/eventBridge.ts';
import { createEcrRepository } from '../../shared/registry/ecrRepositories.ts';
import { mintEcrToken } from '../../shared/registry/ecrToken.ts';
import { QUEUE_NAMES } from '../../shared/steps/table.ts';
import { ACTIONS, describeFailure, type CallResult } from './iamCalls.ts';
import { signedRequest } from './motoIam.ts';

/** A runtime's message group; timer names carry its UID. */
const GROUP = 'runtime-5f0c3c1e-2a6b-4c1d-9e3f-7a8b9c0d1e2f';
const HOUR_MS = 3_600_000;

const [fn = '', out = ''] = process.argv.slice(2);
const results: CallResult[] = [];
const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

async function call(name: string, actions: readonly string[], run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
    results.push({ fn, call: name, actions, ok: true });
  } catch (err) {
    results.push({ fn, call: name, actions, ok: false, error: describeFailure(err) });
  }
}

/** Immediate, delayed and long sends of one step's message, as its retries and rechecks make them. */
async function sends(producer: QueueProducer, step: string, what: string): Promise<void> {
  const msg = { step, group: GROUP, body: JSON.stringify({ probe: what }) };
  await call(`${what}: a message to the ${step} queue`, ACTIONS.send, () =>
    producer.send({ ...msg, dedupId: `${fn}-${step}-now` }),
  );
  await call(`${what}: a retry for ${step} on the delay queue`, ACTIONS.send, () =>
    producer.send({ ...msg, dedupId: `${fn}-${step}-soon`, delayMs: 30_000 }),
  );
  await call(`${what}: a long timer for ${step}`, ACTIONS.armTimer, () =>
    producer.send({ ...msg, dedupId: `${fn}-${step}-later`, delayMs: 2 * HOUR_MS }),
  );
  await call(`${what}: the same timer for ${step} moved`, ACTIONS.moveTimer, () =>
    producer.send({ ...msg, dedupId: `${fn}-${step}-later`, delayMs: 3 * HOUR_MS }),
  );
}

async function fleet(kube: (name: string) => Promise<unknown>): Promise<void> {
  const name = process.env['AICR_FLEET_CLUSTERS']?.split(',')[0];
  if (!name) return;
  await call(`cluster ${name} of the fleet described`, ACTIONS.describeFleetCluster, async () => {
    if (!(await kube(name))) throw new Error(`no connection to ${name}`);
  });
}

async function stepFunction(queue: string): Promise<void> {
  const deps = buildStepDeps(queue);
  await sends(deps.producer, queue, 'retry');
  if (deps.clusterKube) await fleet(deps.clusterKube);
  if (queue === 'resolve') {
    await call('a missing repository under the prefix created', ACTIONS.createRepository, () =>
      createEcrRepository(env('IAM_PROBE_REPOSITORY')),
    );
  }
  if (queue === 'notify') {
    await call('a notification put on the bus', ACTIONS.putEvents, async () => {
      const detail = {
        version: 1,
        key: 'probe',
        kind: 'released' as const,
        cluster: 'probe',
        runtime: { name: 'cluster', uid: GROUP },
        at: new Date().toISOString(),
      };
      const sent = await eventBridgeSink(env('AICR_EVENT_BUS')).put([
        { kind: 'released', detailType: 'Runtime Released', detail },
      ]);
      if (!sent.ok) throw new Error(sent.cause);
    });
  }
  if (queue === 'resolve' || queue === 'token-refresh' || queue === 'rollout') {
    await call('an ECR token minted', ACTIONS.mintToken, async () => {
      const minted = await mintEcrToken();
      if (!minted.ok) throw new Error(minted.cause);
    });
  }
}

async function relay(): Promise<void> {
  // The relay's own producer, watched: the handler reports a failed record, not why it failed.
  let lastError: unknown;
  const watched = (deps: RelayDeps): RelayDeps => ({
    ...deps,
    producer: {
      send: async (msg) => {
        try {
          return await deps.producer.send(msg);
        } catch (err) {
          lastError = err;
          throw err;
        }
      },
      deadLetter: (msg) => deps.producer.deadLetter(msg),
    },
  });
  const handler = createRelayHandler(() => watched(relayDeps()));
  const now = Date.now();
  const cases = [
    ['a due message forwarded', 0, 'due', ACTIONS.send],
    ['a message not yet due sent on the delay queue', 60_000, 'soon', ACTIONS.send],
    ['a message due in hours given a long timer', 2 * HOUR_MS, 'later', ACTIONS.armTimer],
    ['that timer moved', 3 * HOUR_MS, 'later', ACTIONS.moveTimer],
  ] as const;
  for (const queue of QUEUE_NAMES) {
    for (const [what, inMs, id, actions] of cases) {
      await call(`${what} (${queue})`, actions, async () => {
        const body = encodeEnvelope({
          step: queue,
          group: GROUP,
          dedupId: `relay-${queue}-${id}`,
          body: JSON.stringify({ probe: id }),
          notBefore: now + inMs,
        });
        const record = { messageId: `${queue}-${id}`, body } as Parameters<typeof handler>[0]['Records'][number];
        lastError = undefined;
        const { batchItemFailures } = await handler({ Records: [record] });
        if (batchItemFailures.length > 0) throw lastError ?? new Error('the relay failed the record');
      });
    }
  }
}

async function forwarder(): Promise<void> {
  const deps = forwarderDeps();
  for (const queue of QUEUE_NAMES) {
    await call(`a wake-up sent to the ${queue} queue`, ACTIONS.send, () =>
      deps.producer.send({ step: queue, group: GROUP, dedupId: `forwarder-${queue}`, body: '{}' }),
    );
  }
  await call("a gone runtime's timer swept", ACTIONS.sweepTimers, async () => {
    const swept = await deps.timers?.sweep(new Set());
    if (!swept?.length) throw new Error('no timer was swept');
  });
  if (deps.fleet) await fleet(deps.fleet.kube);
}

/** What Lambda does with the function's role: poll its queue (event source mapping) and write its log group. */
async function platform(): Promise<void> {
  const queueUrl = process.env['IAM_PROBE_CONSUMED_QUEUE_URL'];
  if (queueUrl) {
    await call('its queue polled, a message held and deleted', ACTIONS.poll, async () => {
      const sqs = new SQSClient({});
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }));
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
      );
      const handle = Messages?.[0]?.ReceiptHandle;
      if (!handle) throw new Error('no message to receive');
      await sqs.send(
        new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: handle, VisibilityTimeout: 0 }),
      );
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: handle }));
    });
  }
  const group = env('IAM_PROBE_LOG_GROUP');
  await call('its log group written', ACTIONS.logs, async () => {
    const credentials = {
      accessKeyId: env('AWS_ACCESS_KEY_ID'),
      secretAccessKey: env('AWS_SECRET_ACCESS_KEY'),
      sessionToken: env('AWS_SESSION_TOKEN'),
    };
    const logs = async (target: string, body: object): Promise<void> => {
      const answer = await signedRequest(env('AWS_ENDPOINT_URL'), credentials, {
        service: 'logs',
        region: env('AWS_REGION'),
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `Logs_20140328.${target}` },
        body: JSON.stringify(body),
      });
      if (answer.status !== 200) throw new Error(`logs ${target} answered ${answer.status}: ${answer.text}`);
    };
    // A stream per container, as Lambda makes them.
    const stream = `probe-${process.pid}`;
    await logs('CreateLogStream', { logGroupName: group, logStreamName: stream });
    await logs('PutLogEvents', {
      logGroupName: group,
      logStreamName: stream,
      logEvents: [{ timestamp: Date.now(), message: 'probe' }],
    });
  });
}

if (fn === 'relay') await relay();
else if (fn === 'forwarder') await forwarder();
else await stepFunction(fn);
await platform();
writeFileSync(out, JSON.stringify(results));

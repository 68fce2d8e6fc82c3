// The forwarder as a scheduled Lambda (functions/forwarder.ts): each invocation watches for a
// window and leaves its checkpoint in the cluster. No event is lost between windows, nor
// across a real 410 (an API server without a watch cache, after an etcd compaction).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { watchedBy } from '../../shared/forwarder/watched.ts';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { FORWARDER_CHECKPOINT } from '../../shared/api/constants.ts';
import type { WindowResult } from '../../shared/aws/forwarderWindow.ts';
import { compactEtcd, startExtraApiServer, type ExtraApiServer } from '../helpers/apiserver.ts';
import { clearForwarderCheckpoints, forwarderAndResolve } from '../helpers/awsFunctions.ts';
import { CONTROL_PLANE_USER, awsClientConfig } from '../../harness/env.ts';
import { SqsLambdaDriver, type SqsHandler, type TestQueue } from '../../harness/sqsDriver.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../../harness/runtime.ts';

const sqs = new SQSClient(awsClientConfig());
let server: ExtraApiServer;
let queue: TestQueue;
let forwarder: (event: unknown, context: Context) => Promise<WindowResult>;
let resolve: SqsHandler;
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await clearForwarderCheckpoints();
  server = await startExtraApiServer('apiserver-forwarder', ['--watch-cache=false']);
  ({ queue, forwarder, resolve } = await forwarderAndResolve(sqs, {
    AICR_KUBECONFIG: server.kubeconfig,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    AICR_FORWARDER_WINDOW_SECONDS: '2',
  }));
});
after(async () => {
  await server.stop();
  await deleteRuntime();
});

async function checkpoint(): Promise<number> {
  return Number(
    await kubectl(
      'get',
      'configmap',
      '-n',
      FORWARDER_CHECKPOINT.namespace,
      FORWARDER_CHECKPOINT.name,
      '-o',
      `jsonpath={.data.${FORWARDER_CHECKPOINT.key}}`,
    ),
  );
}

async function statusFor(generation: number): Promise<void> {
  const driver = new SqsLambdaDriver(sqs, queue, resolve);
  await driver.runUntil(
    `status for generation ${generation}`,
    async () => {
      const rt = await getRuntime();
      return rt?.status?.observedGeneration === generation && condition(rt, 'Reconciling') !== undefined;
    },
    20_000,
  );
}

test('a change made between two forwarder windows is forwarded by the next one', async () => {
  await createRuntime({ aicrVersion: 'v0.11.1' });
  const first = await forwarder({}, context);
  assert.equal(first.relists, watchedBy().length, 'the first window has no checkpoints: each watched kind lists once');
  assert.ok(first.enqueued >= 1);
  await statusFor(1);
  const afterFirst = await checkpoint();
  assert.ok(afterFirst > 0, 'the window left its checkpoint in the cluster');

  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  const second = await forwarder({}, context);
  assert.equal(second.relists, 0, 'the next window resumed from the checkpoint');
  assert.ok(second.enqueued >= 1, 'the change made while no window was open was forwarded');
  await statusFor(2);
  assert.ok((await checkpoint()) > afterFirst);
});

test('a 410 between windows makes the next window relist, and the change still arrives', async () => {
  const resumeFrom = await checkpoint();
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"suspendEngine":true}}');
  await kubectl('annotate', 'clusterruntime', 'cluster', 'example.com/touched=1', '--overwrite');
  assert.ok((await compactEtcd()) > resumeFrom + 1);
  const window = await forwarder({}, context);
  assert.ok(window.relists >= 1, 'the expired resourceVersion forced a relist');
  assert.ok(window.enqueued >= 1);
  await statusFor(3);
});

// FLT-1 on the AWS path: an install and an upgrade whose forwarder and rollout function run in a
// process (test/helpers/faults/crashingFunctions.ts) that the harness kills with SIGKILL right
// after seeded writes, as a Lambda container can die mid-invocation. The messages it had
// received come back after their visibility timeout (2 s here; 180 s as deployed) and count
// towards the redrive limit of 5 the deployment sets; each process also handles a share of
// batches twice. The same checks as the local-mode suite (faults.crashes.test.ts). SQS cannot
// tell a container that died from a message that kills it, so a message in flight through five
// deaths goes to the dead-letter queue, as a poison message would (and its alarm fires); the
// run must still end where a run without faults ends, since every look starts from the cluster.
// AICR_FAULT_SEED replays a seed; AICR_FAULT_RELEASES sizes the plan.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SQSClient } from '@aws-sdk/client-sqs';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { CONTROL_PLANE_USER, awsClientConfig, resetMoto, testEnv } from '../../harness/env.ts';
import { RELEASES, SEED, seeded } from '../helpers/faults/processes.ts';
import { assertEndState, assertHistory, rolloutUnderFaults } from '../helpers/faults/rolloutUnderFaults.ts';
import { chartRelease, pushChart, storePlan } from '../../harness/rolloutStage.ts';
import { clearApplications, clearRolloutStage } from '../../harness/rollouts.ts';
import { createRuntime, deleteRuntime, kubectl } from '../../harness/runtime.ts';
import {
  createFifoWithDlq,
  createQueue,
  createStepQueues,
  queueDepth,
  type TestQueue,
} from '../../harness/sqsDriver.ts';

const sqs = new SQSClient(awsClientConfig());
const deadLetterQueues: TestQueue[] = [];
const names = Array.from({ length: RELEASES }, (_, i) => `fls-${String(i).padStart(2, '0')}`);
const rng = seeded(SEED + 1);
let uid = '';

before(async () => {
  await clearRolloutStage();
  await resetMoto();
  const { settings } = await createStepQueues(async (base) => {
    const { queue, dlq } = await createFifoWithDlq(sqs, base, { visibilitySeconds: 2, maxReceiveCount: 5 });
    deadLetterQueues.push(dlq);
    return queue;
  });
  const delay = await createQueue(sqs, 'aicr-delay');
  // The harness's processes inherit these, as the functions read them from their environment.
  Object.assign(process.env, {
    ...settings,
    AICR_DELAY_QUEUE_URL: delay.url,
    AICR_KUBECONFIG: testEnv().KUBECONFIG,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    LOG_LEVEL: process.env['LOG_LEVEL'] ?? 'warn',
  });
});

after(async () => {
  if (process.env['KEEP']) return;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
});

const deadLettered = async (): Promise<number> =>
  (await Promise.all(deadLetterQueues.map((q) => queueDepth(sqs, q)))).reduce((a, b) => a + b, 0);

test(`FLT-1 on the AWS path: a first install of ${RELEASES} releases whose forwarder and rollout function are killed (SIGKILL) right after seeded writes, their messages coming back after the visibility timeout, writes no Application before approval, writes the releases in order, and ends Released as a run without faults does, whatever the crashes dead-lettered`, async () => {
  for (const n of names) await pushChart(n, '1.0.0');
  uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const { name: plan } = await storePlan(
    uid,
    names.map((n, i) => chartRelease(n, i, '1.0.0')),
  );
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng, { path: 'sqs' });
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(names.map((n) => [n, '1.0.0'])));
  console.log(`dead-lettered so far (messages in flight through five container deaths): ${await deadLettered()}`);
});

test('FLT-1 on the AWS path: an upgrade of every release under the same crashes ends where a run without faults ends, with the same safety, whatever the crashes dead-lettered', async () => {
  assert.ok(uid, 'the runtime the install left');
  for (const n of names) await pushChart(n, '1.1.0');
  const { name: plan } = await storePlan(
    uid,
    names.map((n, i) => chartRelease(n, i, '1.1.0')),
  );
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng, { path: 'sqs' });
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(names.map((n): [string, string] => [n, '1.1.0'])));
  console.log(`dead-lettered so far (messages in flight through five container deaths): ${await deadLettered()}`);
});

// Notifications on the emulator's EventBridge (NTF-1, NTF-2): local mode with a bus named, a
// rule on that bus sending the control plane's events to an SQS queue, and a rollout taken
// through approval to Released and a second one revoked. Each notification arrives once with
// what a receiver needs, and the notify step handling the same message again sends nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { RUNTIME_NAME } from '../../shared/api/constants.ts';
import type { NoticeDetail } from '../../shared/notifications/derive.ts';
import { NOTICE_KIND, NOTICE_SOURCE } from '../../shared/notifications/kinds.ts';
import { notifyRunner } from '../../shared/steps/notify/index.ts';
import { runStep } from '../../shared/steps/run.ts';
import { STEP_TABLE, type StepRow, stepRow } from '../../shared/steps/table.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { awsClientConfig, uniqueName } from '../../harness/env.ts';
import { captureLogger } from '../../harness/logs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import { approve, awaitingRollout, clearRolloutStage, released, stopAndClear } from '../../harness/rollouts.ts';
import { createRuntime, getRuntime, waitFor } from '../../harness/runtime.ts';
import { createQueue } from '../../harness/sqsDriver.ts';

const STEPS: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout' || r.name === 'notify');
const BUS = uniqueName('aicr-notices');
const sqs = new SQSClient(awsClientConfig());
const events = new EventBridgeClient(awsClientConfig());
let queueUrl = '';
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

interface Arrived {
  readonly source: string;
  readonly detailType: string;
  readonly detail: NoticeDetail;
}
const arrived: Arrived[] = [];

/** Everything the rule delivered so far, added to `arrived`. */
async function drain(): Promise<void> {
  for (;;) {
    const out = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    if (!out.Messages?.length) return;
    for (const m of out.Messages) {
      const e = JSON.parse(m.Body ?? '{}') as { source: string; 'detail-type': string; detail: NoticeDetail };
      arrived.push({ source: e.source, detailType: e['detail-type'], detail: e.detail });
    }
    const { DeleteMessageBatchCommand } = await import('@aws-sdk/client-sqs');
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: out.Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
}

async function arrives(detailType: string): Promise<Arrived> {
  return waitFor(
    `a '${detailType}' notification on the bus`,
    async () => {
      await drain();
      return arrived.find((a) => a.detailType === detailType);
    },
    30_000,
  );
}

function assertAsked(asked: Arrived, rolloutName: string, plan: string, uid: string): void {
  const r = asked.detail.rollout;
  assert.equal(asked.source, NOTICE_SOURCE);
  assert.ok(r, 'the rollout is described');
  assert.equal(r.name, rolloutName);
  assert.equal(r.toPlan, plan);
  assert.equal(r.approveCommand, `kubectl aicr approve ${rolloutName}`);
  assert.deepEqual(
    r.releases.map((x) => [x.release, x.action, x.toVersion]),
    [['ntf-alpha', 'Install', '1.0.0']],
  );
  assert.ok(r.releases[0]?.verdict, 'the release carries its verdict');
  assert.equal(asked.detail.cluster, 'notices-test');
  assert.deepEqual(asked.detail.runtime, { name: RUNTIME_NAME, uid });
}

/** The notify step handling the same message again, twice, as SQS may deliver it; then what arrived. */
async function handleAgain(uid: string): Promise<void> {
  const row = stepRow('notify');
  assert.ok(row);
  const item = { v: 1 as const, step: 'notify', runtime: { name: RUNTIME_NAME, uid }, cause: 'MODIFIED', attempt: 1 };
  const deps = { kube: stepKube('notify'), log: captureLogger().log, now: () => new Date(), timings: DEFAULT_TIMINGS };
  for (let i = 0; i < 2; i++) await runStep(item, { row, runner: notifyRunner() }, deps);
  // The emulator delivers to the rule's queue within PutEvents, so anything sent is there now.
  await drain();
}

before(async () => {
  await clearRolloutStage();
  await events.send(new CreateEventBusCommand({ Name: BUS }));
  const queue = await createQueue(sqs, uniqueName('aicr-notices'));
  queueUrl = queue.url;
  await events.send(
    new PutRuleCommand({
      Name: 'all-notices',
      EventBusName: BUS,
      EventPattern: JSON.stringify({ source: [NOTICE_SOURCE] }),
    }),
  );
  await events.send(
    new PutTargetsCommand({ Rule: 'all-notices', EventBusName: BUS, Targets: [{ Id: 'queue', Arn: queue.arn }] }),
  );
  process.env['AICR_EVENT_BUS'] = BUS;
  process.env['AICR_EKS_CLUSTER_NAME'] = 'notices-test';
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS, table: STEPS });
});

after(async () => {
  delete process.env['AICR_EVENT_BUS'];
  delete process.env['AICR_EKS_CLUSTER_NAME'];
  if (cp) await stopAndClear(cp);
  if (queueUrl) await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
});

test('NTF-1 NTF-2 a rollout awaiting approval, then Released, then a second one revoked: each notification arrives once on EventBridge with what a receiver needs', async () => {
  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  await pushChart('ntf-alpha', '1.0.0');
  await pushChart('ntf-alpha', '1.1.0');
  const { name: first } = await storePlan(uid, [chartRelease('ntf-alpha', 0, '1.0.0')]);
  await target(first);
  const waiting = await awaitingRollout(first);

  assertAsked(await arrives(NOTICE_KIND.awaitingApproval.detailType), waiting.metadata.name, first, uid);

  await approve(waiting.metadata.name);
  await released(`Released on ${first}`, (reason, message) => reason === 'Released' && message.includes(first));
  const done = await arrives(NOTICE_KIND.released.detailType);
  assert.equal(done.detail.condition?.status, 'True');

  const { name: second } = await storePlan(uid, [chartRelease('ntf-alpha', 0, '1.1.0')]);
  await target(second);
  const next = await awaitingRollout(second);
  const revoke = await kubectlAicr(['revoke', next.metadata.name, '--reason', 'not this week'], 'alice');
  assert.equal(revoke.code, 0, revoke.stderr);
  const revoked = await arrives(NOTICE_KIND.rolloutRevoked.detailType);
  assert.equal(revoked.detail.rollout?.name, next.metadata.name);
  assert.equal(revoked.detail.rollout?.outcome, 'Revoked');

  await handleAgain(uid);
  const counts = new Map<string, number>();
  for (const a of arrived) counts.set(a.detailType, (counts.get(a.detailType) ?? 0) + 1);
  assert.equal(counts.get(NOTICE_KIND.awaitingApproval.detailType), 2, 'one per rollout that awaited approval');
  assert.equal(counts.get(NOTICE_KIND.released.detailType), 1);
  assert.equal(counts.get(NOTICE_KIND.rolloutRevoked.detailType), 1);
  assert.equal(new Set(arrived.map((a) => a.detail.key)).size, arrived.length, 'every key is its own');
  const record = ((await getRuntime())?.status as { notifications?: { sent: number } } | undefined)?.notifications;
  assert.equal(record?.sent, arrived.length, 'status.notifications counts what was sent');
  assert.doesNotMatch(JSON.stringify(arrived), /password|valuesChanged/i);
});

test('NTF-2 with EventBridge refusing every send the rollout still goes through; the sends are retried and, once the bus takes them, the state then current is told once', async () => {
  const uid = (await getRuntime())?.metadata.uid ?? '';
  assert.ok(uid, 'the runtime of the test before');
  const before = arrived.length;
  process.env['AICR_EVENT_BUS'] = uniqueName('aicr-no-such-bus');
  await pushChart('ntf-alpha', '1.2.0');
  const { name: third } = await storePlan(uid, [chartRelease('ntf-alpha', 0, '1.2.0')]);
  await target(third);
  await approve((await awaitingRollout(third)).metadata.name);
  await released(
    `Released on ${third} while no notification can be sent`,
    (reason, message) => reason === 'Released' && message.includes(third),
  );
  const refused = cp?.records().filter((l) => l['message'] === 'notifications not sent; retrying with backoff') ?? [];
  assert.ok(refused.length > 0, 'the refused sends are logged');
  assert.doesNotMatch(
    JSON.stringify(refused),
    /kubectl aicr approve|"detail"/,
    'a refusal logs the cause, not the notification',
  );
  await drain();
  assert.equal(arrived.length, before, 'nothing arrived while the bus was missing');

  process.env['AICR_EVENT_BUS'] = BUS;
  const told = await waitFor(
    'the Released state told once the bus takes notifications',
    async () => {
      await drain();
      return arrived.slice(before).find((a) => a.detailType === NOTICE_KIND.released.detailType);
    },
    60_000,
  );
  assert.equal(told.detail.condition?.status, 'True');
  // Once the record says it was told, no retry is left to send it again.
  await waitFor(
    'status.notifications to record the Released plan',
    async () =>
      ((await getRuntime())?.status as { notifications?: { released?: string } } | undefined)?.notifications
        ?.released === `Released/${third}` || undefined,
    30_000,
  );
  await drain();
  assert.equal(
    arrived.slice(before).filter((a) => a.detailType === NOTICE_KIND.released.detailType).length,
    1,
    'told once, not per retry',
  );
});

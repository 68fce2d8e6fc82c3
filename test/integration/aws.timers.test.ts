// Long timers on EventBridge Scheduler (moto): a delay beyond SQS's 15 minutes becomes a
// one-time schedule aimed at the step's FIFO queue; arming again replaces it; cancelling and
// sweeping remove it. moto never fires schedules, so the test delivers the schedule's own
// target input to the queue, as Scheduler would, and the real handler acts on it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SchedulerTimers, timerName, timerRuntime } from '../../shared/aws/schedulerTimers.ts';
import { SqsProducer } from '../../shared/aws/sqsProducer.ts';
import { encodeWorkItem, runtimeGroup } from '../../shared/queue/workItem.ts';
import { CONTROL_PLANE_USER, awsClientConfig, resetMoto, testEnv } from '../../harness/env.ts';
import {
  createFifoWithDlq,
  createQueue,
  queueDepth,
  SqsLambdaDriver,
  type SqsHandler,
  type TestQueue,
} from '../../harness/sqsDriver.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../../harness/runtime.ts';

const GROUP = 'aicr-control-plane-test';
const ROLE = 'arn:aws:iam::123456789012:role/aicr-scheduler-target';
const scheduler = new SchedulerClient(awsClientConfig());
const sqs = new SQSClient(awsClientConfig());
let queue: TestQueue;
let delay: TestQueue;
let snapshotQueue: TestQueue;
let timers: SchedulerTimers;
let producer: SqsProducer;
const clock = Date.parse('2026-12-01T08:00:00Z');

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await resetMoto();
  await scheduler.send(new CreateScheduleGroupCommand({ Name: GROUP }));
  ({ queue } = await createFifoWithDlq(sqs, 'aicr-resolve', { visibilitySeconds: 1, maxReceiveCount: 3 }));
  delay = await createQueue(sqs, 'aicr-delay');
  snapshotQueue = (await createFifoWithDlq(sqs, 'aicr-snapshot', { visibilitySeconds: 1, maxReceiveCount: 3 })).queue;
  timers = new SchedulerTimers(
    () => scheduler,
    { groupName: GROUP, roleArn: ROLE, queueArn: { resolve: queue.arn } },
    () => clock,
  );
  producer = new SqsProducer(
    sqs,
    { fifoQueueUrl: { resolve: queue.url }, delayQueueUrl: delay.url },
    () => clock,
    timers,
  );
});
after(deleteRuntime);

const get = (group: string, dedupId: string) =>
  scheduler.send(new GetScheduleCommand({ GroupName: GROUP, Name: timerName(group, dedupId) }));

test('a delay beyond 15 minutes arms a one-time schedule aimed at the step queue', async () => {
  const uid = '0b9c3a52-1111-4222-8333-944445555666';
  const body = encodeWorkItem({ v: 1, step: 'resolve', runtime: { name: 'cluster', uid }, cause: 'deadline' });
  await producer.send({
    step: 'resolve',
    group: runtimeGroup(uid),
    dedupId: `${uid}/resolve/deadline`,
    body,
    delayMs: 2 * 3_600_000,
  });
  const s = await get(runtimeGroup(uid), `${uid}/resolve/deadline`);
  assert.equal(s.ScheduleExpression, 'at(2026-12-01T10:00:00)');
  assert.equal(s.ActionAfterCompletion, 'DELETE');
  assert.equal(s.FlexibleTimeWindow?.Mode, 'OFF');
  assert.equal(s.Target?.Arn, queue.arn);
  assert.equal(s.Target?.RoleArn, ROLE);
  assert.equal(s.Target?.Input, body);
  assert.equal(s.Target?.SqsParameters?.MessageGroupId, runtimeGroup(uid));
  assert.equal(s.Target?.RetryPolicy?.MaximumRetryAttempts, 3, 'a failing target is not retried forever');
  assert.equal(timerRuntime(s.Name ?? ''), uid);
  assert.equal(await queueDepth(sqs, delay), 0, 'nothing went to the delay queue');
});

test('arming the same timer again replaces it; cancelling removes it', async () => {
  const uid = '0b9c3a52-1111-4222-8333-944445555777';
  const msg = { step: 'resolve' as const, group: runtimeGroup(uid), dedupId: `${uid}/resolve/deadline`, body: '{}' };
  await producer.send({ ...msg, delayMs: 3_600_000 });
  await producer.send({ ...msg, delayMs: 5 * 3_600_000 });
  assert.equal((await get(msg.group, msg.dedupId)).ScheduleExpression, 'at(2026-12-01T13:00:00)');
  assert.equal((await timers.list()).filter((n) => timerRuntime(n) === uid).length, 1, 'one timer, moved');
  await timers.cancel(msg.group, msg.dedupId);
  await assert.rejects(get(msg.group, msg.dedupId), (e: Error) => e.name === 'ResourceNotFoundException');
  await timers.cancel(msg.group, msg.dedupId);
});

test('the message a timer delivers is handled by the step', async () => {
  const rt = await createRuntime({ aicrVersion: 'v0.11.1' });
  const group = runtimeGroup(rt.metadata.uid);
  const dedupId = `${rt.metadata.uid}/resolve/deadline`;
  await producer.send({
    step: 'resolve',
    group,
    dedupId,
    body: encodeWorkItem({ v: 1, step: 'resolve', runtime: { name: 'cluster', uid: rt.metadata.uid }, cause: 'timer' }),
    delayMs: 3_600_000,
  });
  const target = (await get(group, dedupId)).Target;
  // What Scheduler does at the schedule's time: send Input to the queue with the message group
  // (content-based deduplication supplies the ID).
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queue.url,
      MessageBody: target?.Input ?? '',
      MessageGroupId: target?.SqsParameters?.MessageGroupId ?? '',
      MessageDeduplicationId: 'scheduler-fired',
    }),
  );
  Object.assign(process.env, {
    AICR_RESOLVE_QUEUE_URL: queue.url,
    AICR_SNAPSHOT_QUEUE_URL: snapshotQueue.url,
    AICR_DELAY_QUEUE_URL: delay.url,
    AICR_KUBECONFIG: testEnv().KUBECONFIG,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    LOG_LEVEL: 'silent',
  });
  const { handler } = (await import('../../functions/resolve.ts')) as { handler: SqsHandler };
  await new SqsLambdaDriver(sqs, queue, handler).runUntil(
    'status from the timer message',
    async () => condition(await getRuntime(), 'Resolved') !== undefined,
    15_000,
  );
});

test('timers of runtimes that no longer exist are swept; live ones stay', async () => {
  const live = (await getRuntime())?.metadata.uid;
  assert.ok(live);
  const gone = '0b9c3a52-1111-4222-8333-944445555888';
  await producer.send({
    step: 'resolve',
    group: runtimeGroup(gone),
    dedupId: `${gone}/resolve/deadline`,
    body: '{}',
    delayMs: 3_600_000,
  });
  const removed = await timers.sweep(new Set([live]));
  assert.ok(removed.some((n) => timerRuntime(n) === gone));
  const left = (await timers.list()).map(timerRuntime);
  assert.ok(!left.includes(gone));
  assert.ok(left.includes(live), "the live runtime's timer stays");
});

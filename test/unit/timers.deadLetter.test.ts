import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CreateScheduleCommandInput, SchedulerClient } from '@aws-sdk/client-scheduler';
import { timersFromConfig } from '../../shared/aws/routes.ts';
import { SchedulerTimers } from '../../shared/aws/schedulerTimers.ts';
import { ConfigSchema } from '../../shared/aws/environment.ts';
import { queueSettings } from '../../shared/steps/table.ts';

const UID = '5f0c1e2d-3a4b-4c5d-8e6f-708192a3b4c5';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:123456789012:aicr-control-plane-prod-resolve.fifo';
const DLQ_ARN = 'arn:aws:sqs:us-east-1:123456789012:aicr-control-plane-prod-delay-dlq';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/timer-target';

/** A Scheduler client that keeps what each CreateSchedule asked for. */
function recordingClient(): { client: SchedulerClient; created: CreateScheduleCommandInput[] } {
  const created: CreateScheduleCommandInput[] = [];
  const client = {
    send: (command: { input: CreateScheduleCommandInput }) => {
      created.push(command.input);
      return Promise.resolve({});
    },
  } as unknown as SchedulerClient;
  return { client, created };
}

const refresh = {
  step: 'resolve',
  group: `runtime-${UID}`,
  dedupId: `${UID}/resolve/deadline`,
  body: '{}',
  delayMs: 6 * 3600_000,
};

test('FLT-2 a long timer is retried by Scheduler and, when it still cannot be delivered, dead-lettered to the queue its alarm watches', async () => {
  const { client, created } = recordingClient();
  await new SchedulerTimers(() => client, {
    groupName: 'timers',
    roleArn: ROLE_ARN,
    queueArn: { resolve: QUEUE_ARN },
    deadLetterArn: DLQ_ARN,
  }).arm(refresh);
  const target = created[0]?.Target;
  assert.deepEqual(target?.DeadLetterConfig, { Arn: DLQ_ARN });
  assert.deepEqual(target?.RetryPolicy, { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 });
  assert.equal(target?.Arn, QUEUE_ARN);
});

test('FLT-2 the packaged settings carry the dead-letter queue to every timer a function arms', async () => {
  const { arn } = queueSettings('resolve');
  const config = ConfigSchema.parse({
    AICR_TIMER_GROUP: 'timers',
    AICR_TIMER_ROLE_ARN: ROLE_ARN,
    AICR_TIMER_DLQ_ARN: DLQ_ARN,
    [arn]: QUEUE_ARN,
  });
  const timers = timersFromConfig(config, ['resolve']);
  assert.ok(timers);
  const { client, created } = recordingClient();
  // The configured timers build their own client; arm through an equal one that records.
  const targets = (timers as unknown as { targets: ConstructorParameters<typeof SchedulerTimers>[1] }).targets;
  await new SchedulerTimers(() => client, targets).arm(refresh);
  assert.deepEqual(created[0]?.Target?.DeadLetterConfig, { Arn: DLQ_ARN });
});

// Long timers on EventBridge Scheduler: a one-time schedule that delivers a message to the
// step's FIFO queue at its time, then deletes itself. Names derive from the message's
// deduplication ID, so arming twice replaces the timer instead of adding one. Delays within
// SQS's 15 minutes use the delay queue instead (ADR 0004).
import { createHash } from 'node:crypto';
import type * as SchedulerSdk from '@aws-sdk/client-scheduler';
import type { CreateScheduleCommandInput, SchedulerClient } from '@aws-sdk/client-scheduler';
import type { OutgoingMessage } from '../queue/port.ts';
import { queueOf } from '../steps/table.ts';

export interface TimerTargets {
  /** FIFO queue ARN by queue name (the step table's `queue`). */
  readonly queueArn: Readonly<Record<string, string>>;
  /** The role Scheduler assumes to send to the queues. */
  readonly roleArn: string;
  readonly groupName: string;
  /** The standard queue Scheduler dead-letters an undeliverable timer to, so its loss pages. */
  readonly deadLetterArn?: string;
}

const RUNTIME_GROUP = /^runtime-([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;
const TIMER_NAME = /^aicr-([0-9a-f]{32})-[0-9a-f]{20}$/;

/** aicr-<runtime UID without dashes>-<digest of the deduplication ID>: 58 characters, within Scheduler's 64. */
export function timerName(group: string, dedupId: string): string {
  const uid = RUNTIME_GROUP.exec(group)?.slice(1).join('') ?? '0'.repeat(32);
  return `aicr-${uid}-${createHash('sha256').update(dedupId).digest('hex').slice(0, 20)}`;
}

/** The runtime UID a timer belongs to, from its name. */
export function timerRuntime(name: string): string | undefined {
  const hex = TIMER_NAME.exec(name)?.[1];
  return hex && `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Scheduler's at() takes a UTC wall time without zone or fraction. */
export function atExpression(when: Date): string {
  return `at(${when.toISOString().slice(0, 19)})`;
}

// The Scheduler client is loaded on first use: most invocations arm no long timer, and it
// would otherwise add to every cold start.
const sdk = (): Promise<typeof SchedulerSdk> => import('@aws-sdk/client-scheduler');

export class SchedulerTimers {
  private readonly makeClient: () => SchedulerClient | Promise<SchedulerClient>;
  private readonly targets: TimerTargets;
  private readonly now: () => number;
  private client: SchedulerClient | undefined;

  constructor(
    makeClient: () => SchedulerClient | Promise<SchedulerClient>,
    targets: TimerTargets,
    now: () => number = Date.now,
  ) {
    this.makeClient = makeClient;
    this.targets = targets;
    this.now = now;
  }

  private input(msg: OutgoingMessage): CreateScheduleCommandInput {
    return {
      Name: timerName(msg.group, msg.dedupId),
      GroupName: this.targets.groupName,
      ScheduleExpression: atExpression(new Date(this.now() + (msg.delayMs ?? 0))),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: this.targets.queueArn[queueOf(msg.step)],
        RoleArn: this.targets.roleArn,
        Input: msg.body,
        SqsParameters: { MessageGroupId: msg.group },
        // A target that keeps failing (a deleted queue, say) is given up on, not retried forever.
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 3600 },
        ...(this.targets.deadLetterArn ? { DeadLetterConfig: { Arn: this.targets.deadLetterArn } } : {}),
      },
    };
  }

  private async scheduler(): Promise<SchedulerClient> {
    this.client ??= await this.makeClient();
    return this.client;
  }

  /** Arms the timer, or moves it if one with the same deduplication ID is armed. */
  async arm(msg: OutgoingMessage): Promise<void> {
    const { ConflictException, CreateScheduleCommand, UpdateScheduleCommand } = await sdk();
    const input = this.input(msg);
    const scheduler = await this.scheduler();
    try {
      await scheduler.send(new CreateScheduleCommand(input));
    } catch (err) {
      if (!(err instanceof ConflictException)) throw err;
      await scheduler.send(new UpdateScheduleCommand(input));
    }
  }

  cancel(group: string, dedupId: string): Promise<void> {
    return this.deleteByName(timerName(group, dedupId));
  }

  /** Removes the timers of runtimes that no longer exist, so none fires for nothing; returns their names. */
  async sweep(liveRuntimeUids: ReadonlySet<string>): Promise<string[]> {
    const orphans = (await this.list()).filter((n) => {
      const uid = timerRuntime(n);
      return uid !== undefined && !liveRuntimeUids.has(uid);
    });
    for (const n of orphans) await this.deleteByName(n);
    return orphans;
  }

  /** Names of the armed timers. */
  async list(): Promise<string[]> {
    const { ListSchedulesCommand } = await sdk();
    const scheduler = await this.scheduler();
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await scheduler.send(
        new ListSchedulesCommand({ GroupName: this.targets.groupName, ...(token ? { NextToken: token } : {}) }),
      );
      for (const s of page.Schedules ?? []) if (s.Name) names.push(s.Name);
      token = page.NextToken;
    } while (token);
    return names;
  }

  async deleteByName(name: string): Promise<void> {
    const { DeleteScheduleCommand, ResourceNotFoundException } = await sdk();
    try {
      await (await this.scheduler()).send(new DeleteScheduleCommand({ Name: name, GroupName: this.targets.groupName }));
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
  }
}

import { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError, required, type Config } from '../config.ts';
import { QUEUE_NAMES, queueSettings } from '../steps/table.ts';
import { SchedulerTimers } from './schedulerTimers.ts';
import { SqsProducer, type SqsRoutes } from './sqsProducer.ts';

function byQueue(config: Config, pick: (s: ReturnType<typeof queueSettings>) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of QUEUE_NAMES) {
    const value = (config as Record<string, unknown>)[pick(queueSettings(q))];
    if (typeof value === 'string') out[q] = value;
  }
  return out;
}

/** Where each queue's messages, delayed ones and dead letters go, from the function's configuration. */
export function sqsRoutes(config: Config): SqsRoutes {
  return { fifoQueueUrl: byQueue(config, (s) => s.url), delayQueueUrl: config.AICR_DELAY_QUEUE_URL, dlqUrl: byQueue(config, (s) => s.dlqUrl) };
}

/** Fails start-up unless the queues this function sends to are configured. */
export function requireQueues(config: Config, queues: readonly string[]): void {
  for (const q of queues) required(config, queueSettings(q).url);
}

/** Long timers, when the deployment configured them (group, role and every queue's ARN, or none). */
export function timersFromConfig(config: Config): SchedulerTimers | undefined {
  const { AICR_TIMER_GROUP: groupName, AICR_TIMER_ROLE_ARN: roleArn } = config;
  const queueArn = byQueue(config, (s) => s.arn);
  const arnKeys = QUEUE_NAMES.map((q) => queueSettings(q).arn);
  const complete = Object.keys(queueArn).length === QUEUE_NAMES.length;
  if (!groupName && !roleArn && Object.keys(queueArn).length === 0) return undefined;
  if (!groupName || !roleArn || !complete) {
    throw new ConfigError(`settings AICR_TIMER_GROUP, AICR_TIMER_ROLE_ARN and ${arnKeys.join(', ')} go together: set all of them`);
  }
  const client = async () => new (await import('@aws-sdk/client-scheduler')).SchedulerClient({});
  return new SchedulerTimers(client, { groupName, roleArn, queueArn });
}

/** The producer; pass the timers when the caller also needs them, so one instance serves both. */
export function producerFromConfig(config: Config, timers: SchedulerTimers | undefined = timersFromConfig(config)): SqsProducer {
  return new SqsProducer(new SQSClient({}), sqsRoutes(config), Date.now, timers);
}

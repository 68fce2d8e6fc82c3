import { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError, type Config } from '../config.ts';
import { SchedulerTimers } from './schedulerTimers.ts';
import { SqsProducer, type SqsRoutes } from './sqsProducer.ts';

/** Where each step's messages and the delayed ones go, from the function's configuration. */
export function sqsRoutes(config: Config): SqsRoutes {
  return { fifoQueueUrl: { resolve: config.AICR_RESOLVE_QUEUE_URL }, delayQueueUrl: config.AICR_DELAY_QUEUE_URL };
}

/** Long timers, when the deployment configured them (all three settings, or none). */
export function timersFromConfig(config: Config): SchedulerTimers | undefined {
  const { AICR_TIMER_GROUP: groupName, AICR_TIMER_ROLE_ARN: roleArn, AICR_RESOLVE_QUEUE_ARN: resolveArn } = config;
  if (!groupName && !roleArn && !resolveArn) return undefined;
  if (!groupName || !roleArn || !resolveArn) {
    throw new ConfigError('settings AICR_TIMER_GROUP, AICR_TIMER_ROLE_ARN and AICR_RESOLVE_QUEUE_ARN go together: set all three');
  }
  const client = async () => new (await import('@aws-sdk/client-scheduler')).SchedulerClient({});
  return new SchedulerTimers(client, { groupName, roleArn, queueArn: { resolve: resolveArn } });
}

/** The producer; pass the timers when the caller also needs them, so one instance serves both. */
export function producerFromConfig(config: Config, timers: SchedulerTimers | undefined = timersFromConfig(config)): SqsProducer {
  return new SqsProducer(new SQSClient({}), sqsRoutes(config), Date.now, timers);
}

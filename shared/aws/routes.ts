import { SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError, required, type Config } from './environment.ts';
import { QUEUE_NAMES, QUEUE_URL_BASE_SETTING, queueSettings, stepQueueName } from '../steps/table.ts';
import { SchedulerTimers } from './schedulerTimers.ts';
import { awsClientOptions } from '../awsRequestTimeouts.ts';
import { SqsProducer, type SqsRoutes } from './sqsProducer.ts';

type QueueSettings = ReturnType<typeof queueSettings>;

const setting = (config: Config, key: string): string | undefined => {
  const value = (config as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** Each step queue's value of one per-queue setting, or `fallback`'s where the setting is absent. */
function byQueue(
  config: Config,
  pick: (s: QueueSettings) => string,
  fallback: (queue: string) => string | undefined = () => undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of QUEUE_NAMES) {
    const value = setting(config, pick(queueSettings(q))) ?? fallback(q);
    if (value !== undefined) out[q] = value;
  }
  return out;
}

/**
 * Each step queue's URL: its own setting where one is given (local mode, tests, a step function
 * given only its own queue), else made from the URL base. The base routes to every step queue,
 * including ones the function may not send to: its role is what refuses those.
 */
function fifoQueueUrls(config: Config): Record<string, string> {
  const base = setting(config, QUEUE_URL_BASE_SETTING);
  return byQueue(
    config,
    (s) => s.url,
    (q) => (base === undefined ? undefined : `${base}${stepQueueName(q)}`),
  );
}

/** Where each queue's messages, delayed ones and dead letters go, from the function's configuration. */
export function sqsRoutes(config: Config): SqsRoutes {
  return {
    fifoQueueUrl: fifoQueueUrls(config),
    delayQueueUrl: config.AICR_DELAY_QUEUE_URL ?? '',
    dlqUrl: byQueue(config, (s) => s.dlqUrl),
  };
}

/** Fails start-up unless the queues this function sends to are configured, by their own settings or the URL base. */
export function requireQueues(
  config: Config,
  queues: readonly string[],
  opts: { readonly delays: boolean } = { delays: true },
): void {
  const urls = fifoQueueUrls(config);
  const missing = queues.filter((q) => urls[q] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      `this function sends to queue ${missing.join(', ')}: setting ${QUEUE_URL_BASE_SETTING} or ` +
        `${missing.map((q) => queueSettings(q).url).join(', ')} is required`,
    );
  }
  if (opts.delays) required(config, 'AICR_DELAY_QUEUE_URL');
}

/**
 * Long timers, when the deployment configured them: the group, the role and the ARN of each
 * queue in `queues` (the ones this function arms timers for), or none of them.
 */
export function timersFromConfig(config: Config, queues: readonly string[] = QUEUE_NAMES): SchedulerTimers | undefined {
  const { AICR_TIMER_GROUP: groupName, AICR_TIMER_ROLE_ARN: roleArn, AICR_TIMER_DLQ_ARN: deadLetterArn } = config;
  const queueArn = Object.fromEntries(
    Object.entries(byQueue(config, (s) => s.arn)).filter(([q]) => queues.includes(q)),
  );
  const arnKeys = queues.map((q) => queueSettings(q).arn);
  if (!groupName && !roleArn && Object.keys(queueArn).length === 0) return undefined;
  if (!groupName || !roleArn || Object.keys(queueArn).length !== queues.length) {
    throw new ConfigError(
      `settings AICR_TIMER_GROUP, AICR_TIMER_ROLE_ARN and ${arnKeys.join(', ')} go together: set all of them`,
    );
  }
  return new SchedulerTimers(schedulerClient, {
    groupName,
    roleArn,
    queueArn,
    ...(deadLetterArn ? { deadLetterArn } : {}),
  });
}

/** The forwarder arms no timer; it only sweeps the group's, which needs the group alone. */
export function timerSweepFromConfig(config: Config): Pick<SchedulerTimers, 'sweep'> | undefined {
  const groupName = config.AICR_TIMER_GROUP;
  return groupName ? new SchedulerTimers(schedulerClient, { groupName, roleArn: '', queueArn: {} }) : undefined;
}

const schedulerClient = async () => new (await import('@aws-sdk/client-scheduler')).SchedulerClient(awsClientOptions());

/**
 * The producer, with the long timers the caller arms (undefined: none, delays hop on the delay
 * queue). No default: an undefined argument would take it, and arm timers for every queue from
 * settings a function that arms none is not given.
 */
export function producerFromConfig(config: Config, timers: SchedulerTimers | undefined): SqsProducer {
  return new SqsProducer(new SQSClient(awsClientOptions()), sqsRoutes(config), Date.now, timers);
}

// What a step function needs, built once per Lambda container from its configuration.
import { SQSClient } from '@aws-sdk/client-sqs';
import { loadConfig, type Config } from '../config.ts';
import { kubeFromConfig } from './kubeFromConfig.ts';
import { createLogger } from '../observability/log.ts';
import type { DispatchDeps } from '../steps/dispatch.ts';
import { SqsProducer } from './sqsProducer.ts';
import { sqsRoutes } from './routes.ts';

export function buildStepDeps(config: Config = loadConfig()): DispatchDeps {
  return {
    kube: kubeFromConfig(config),
    producer: new SqsProducer(new SQSClient({}), sqsRoutes(config)),
    log: createLogger({ level: config.LOG_LEVEL }),
    now: () => new Date(),
  };
}

let cached: DispatchDeps | undefined;

/** The container's dependencies; configuration errors surface on the first invocation's start. */
export function stepDeps(): DispatchDeps {
  cached ??= buildStepDeps();
  return cached;
}

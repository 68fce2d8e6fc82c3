// What a step function needs, built once per Lambda container from its configuration.
import { SQSClient } from '@aws-sdk/client-sqs';
import { loadConfig, ConfigError, type Config } from '../config.ts';
import { KubeClient, loadKubeConfig } from '../kube/client.ts';
import { createLogger } from '../observability/log.ts';
import type { DispatchDeps } from '../steps/dispatch.ts';
import { SqsProducer } from './sqsProducer.ts';
import { sqsRoutes } from './routes.ts';

export function buildStepDeps(config: Config = loadConfig()): DispatchDeps {
  if (!config.AICR_KUBECONFIG || !config.AICR_KUBE_CONTEXT) {
    throw new ConfigError('settings AICR_KUBECONFIG and AICR_KUBE_CONTEXT are required: they say which cluster the steps act on');
  }
  return {
    kube: new KubeClient(loadKubeConfig(config.AICR_KUBECONFIG, config.AICR_KUBE_CONTEXT)),
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

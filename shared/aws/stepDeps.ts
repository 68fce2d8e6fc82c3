// What a step function needs, built once per Lambda container from its configuration.
import { loadConfig, type Config } from '../config.ts';
import { kubeFromConfig } from './kubeFromConfig.ts';
import { createLogger } from '../observability/log.ts';
import type { DispatchDeps } from '../steps/dispatch.ts';
import { producerFromConfig } from './routes.ts';

export function buildStepDeps(config: Config = loadConfig()): DispatchDeps {
  return {
    kube: kubeFromConfig(config),
    producer: producerFromConfig(config),
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

// What a step function needs, built once per Lambda container from its configuration.
import { loadConfig, type Config } from './environment.ts';
import { clustersFromConfig } from './clusterSet.ts';
import { createLogger } from '../observability/log.ts';
import type { DispatchDeps } from '../steps/dispatch.ts';
import { timingsFrom } from '../timings.ts';
import { producerFromConfig, requireQueues, timersFromConfig } from './routes.ts';

/** `queue`: the queue this function consumes; it re-sends retries there, so its URL is required. */
export function buildStepDeps(queue: string, config: Config = loadConfig()): DispatchDeps {
  requireQueues(config, [queue]);
  const clusters = clustersFromConfig(config);
  return {
    kube: clusters.primary,
    clusterKube: clusters.kube,
    // Retries and rechecks go back to this function's own queue, so only its ARN is needed for timers.
    producer: producerFromConfig(config, timersFromConfig(config, [queue])),
    log: createLogger({ level: config.LOG_LEVEL }),
    now: () => new Date(),
    timings: timingsFrom(config),
  };
}

const cached = new Map<string, DispatchDeps>();

/** The container's dependencies; configuration errors surface on the first invocation's start. */
export function stepDeps(queue: string): () => DispatchDeps {
  return () => {
    let deps = cached.get(queue);
    if (!deps) {
      deps = buildStepDeps(queue);
      cached.set(queue, deps);
    }
    return deps;
  };
}

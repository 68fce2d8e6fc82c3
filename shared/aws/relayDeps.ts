// The relay function's dependencies: SQS only, so its bundle carries no Kubernetes client.
import { loadConfig } from './environment.ts';
import { createLogger } from '../observability/log.ts';
import type { RelayDeps } from './relay.ts';
import { QUEUE_NAMES } from '../steps/table.ts';
import { producerFromConfig, requireQueues, timersFromConfig } from './routes.ts';

let cached: RelayDeps | undefined;

export function relayDeps(): RelayDeps {
  if (!cached) {
    const config = loadConfig();
    requireQueues(config, QUEUE_NAMES);
    cached = {
      producer: producerFromConfig(config, timersFromConfig(config)),
      log: createLogger({ level: config.LOG_LEVEL }),
      now: Date.now,
    };
  }
  return cached;
}

// The relay function's dependencies: SQS only, so its bundle carries no Kubernetes client.
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/log.ts';
import type { RelayDeps } from './relay.ts';
import { QUEUE_NAMES } from '../steps/table.ts';
import { producerFromConfig, requireQueues } from './routes.ts';

let cached: RelayDeps | undefined;

export function relayDeps(): RelayDeps {
  if (!cached) {
    const config = loadConfig();
    requireQueues(config, QUEUE_NAMES);
    cached = {
      producer: producerFromConfig(config),
      log: createLogger({ level: config.LOG_LEVEL }),
      now: Date.now,
    };
  }
  return cached;
}

// The relay function's dependencies: SQS only, so its bundle carries no Kubernetes client.
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/log.ts';
import type { RelayDeps } from './relay.ts';
import { producerFromConfig } from './routes.ts';

let cached: RelayDeps | undefined;

export function relayDeps(): RelayDeps {
  if (!cached) {
    const config = loadConfig();
    cached = {
      producer: producerFromConfig(config),
      log: createLogger({ level: config.LOG_LEVEL }),
      now: Date.now,
    };
  }
  return cached;
}

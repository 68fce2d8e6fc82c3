import { loadConfig } from './environment.ts';
import { createLogger } from '../observability/log.ts';
import type { ForwarderWindowDeps } from './forwarderWindow.ts';
import { clustersFromConfig } from './clusterSet.ts';
import { QUEUE_NAMES } from '../steps/table.ts';
import { producerFromConfig, requireQueues, timerSweepFromConfig } from './routes.ts';

let cached: ForwarderWindowDeps | undefined;

export function forwarderDeps(): ForwarderWindowDeps {
  if (!cached) {
    const config = loadConfig();
    requireQueues(config, QUEUE_NAMES, { delays: false });
    // Its sends are immediate; of the timers it only sweeps those of runtimes that are gone.
    const timers = timerSweepFromConfig(config);
    const clusters = clustersFromConfig(config);
    cached = {
      kube: clusters.primary,
      ...(clusters.fleet.length > 0 ? { fleet: { names: clusters.fleet, kube: clusters.kube } } : {}),
      producer: producerFromConfig(config, undefined),
      log: createLogger({ level: config.LOG_LEVEL, context: { step: 'forwarder' } }),
      windowMs: config.AICR_FORWARDER_WINDOW_SECONDS * 1000,
      quietMs: config.AICR_FORWARDER_QUIET_SECONDS * 1000,
      sweep: { staleAfterMs: config.AICR_SWEEP_STALE_AFTER, graceMs: config.AICR_SWEEP_GRACE },
      ...(timers ? { timers } : {}),
    };
  }
  return cached;
}

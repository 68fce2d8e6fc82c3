// The clusters one forwarder window watches (ADR 0019), and the sweeper over them: Jobs are
// swept in each cluster once its own grace has passed; timers, which are the deployment's,
// only when every cluster could be read, so a runtime in an unreachable cluster keeps them.
import { FORWARDER_CHECKPOINT } from '../api/constants.ts';
import { errorFields } from '../classify.ts';
import { RUNTIME_WATCH, checkpointName } from '../forwarder/watched.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import type { StallReporter } from '../observability/stallCounts.ts';
import { type SweepSettings, sweepLeftovers } from '../sweeper/leftovers.ts';
import type { SchedulerTimers } from './schedulerTimers.ts';

export interface WatchedCluster {
  /** Undefined for the deployment's own cluster. */
  readonly cluster?: string;
  readonly kube: KubePort;
}

export interface Fleet {
  readonly names: readonly string[];
  kube(name: string): Promise<KubePort | undefined>;
}

/** The clusters to watch now; `complete` is false when a further cluster could not be reached. */
export async function clustersToWatch(
  own: KubePort,
  fleet: Fleet | undefined,
  log: Logger,
): Promise<{ clusters: WatchedCluster[]; complete: boolean }> {
  const clusters: WatchedCluster[] = [{ kube: own }];
  let complete = true;
  for (const name of fleet?.names ?? []) {
    try {
      const kube = await fleet?.kube(name);
      if (kube) clusters.push({ cluster: name, kube });
    } catch (err) {
      complete = false;
      log.error('a cluster of the fleet cannot be reached; its changes wait for a later window', {
        cluster: name,
        ...errorFields(err),
      });
    }
  }
  return { clusters, complete };
}

/**
 * When the forwarder started on a cluster: its first checkpoint's creation, which survives
 * cold starts, so the sweeper's grace runs once per cluster, not once per window.
 */
async function forwarderStart(kube: KubePort): Promise<Date> {
  const cm = await kube.get(KIND.configMap, checkpointName(RUNTIME_WATCH), FORWARDER_CHECKPOINT.namespace);
  const at = Date.parse(cm?.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? new Date() : new Date(at);
}

export interface ClusterSweep {
  readonly log: Logger;
  readonly settings: SweepSettings;
  readonly timers?: Pick<SchedulerTimers, 'sweep'>;
}

/** Sweeps every watched cluster; returns how many Jobs and timers were removed. */
export async function sweepClusters(
  s: ClusterSweep,
  clusters: readonly WatchedCluster[],
  complete: boolean,
): Promise<number> {
  let removed = 0;
  let pastGrace = complete;
  const live = new Set<string>();
  for (const c of clusters) {
    const result = await sweepLeftovers(
      { kube: c.kube, log: s.log, now: () => new Date(), startedAt: await forwarderStart(c.kube) },
      s.settings,
    );
    if ('jobs' in result) {
      removed += result.jobs.length;
      for (const uid of result.live) live.add(uid);
    } else pastGrace = false;
  }
  if (!s.timers || !pastGrace) return removed;
  const timers = await s.timers.sweep(live);
  if (timers.length > 0) s.log.info('removed timers of runtimes that no longer exist', { timers: timers.length });
  return removed + timers.length;
}

/**
 * Counts the stalled runtimes of every watched cluster, once a window. A cluster that cannot be
 * listed skips the count: a partial one could look like a cleared stall.
 */
export async function countStalls(
  clusters: readonly WatchedCluster[],
  reporter: StallReporter,
  log: Logger,
): Promise<void> {
  const runtimes = [];
  for (const c of clusters) {
    try {
      const { items } = await c.kube.list(KIND.clusterRuntime);
      runtimes.push(
        ...items.map((runtime) => ({
          name: c.cluster ? `${c.cluster}/${runtime.metadata.name}` : runtime.metadata.name,
          runtime,
        })),
      );
    } catch (err) {
      log.warn('stall counts skipped this window: a cluster could not be listed', {
        ...(c.cluster ? { cluster: c.cluster } : {}),
        ...errorFields(err),
      });
      return;
    }
  }
  reporter.report(runtimes);
}

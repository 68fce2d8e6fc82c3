// The forwarder as a scheduled Lambda: each invocation watches for one window, resuming from
// the checkpoint in the cluster, and stops before the function's deadline. Windows overlap
// (ADR 0005), so the watch never has a gap.
import type { Context } from 'aws-lambda';
import { ConfigMapCheckpoint } from '../forwarder/configMapCheckpoint.ts';
import { COALESCE_MS, Forwarder, type ForwarderStats } from '../forwarder/forwarder.ts';
import { FORWARDER_CHECKPOINT } from '../api/constants.ts';
import { RUNTIME_WATCH, checkpointName, watchedBy } from '../forwarder/watched.ts';
import { type SweepSettings, sweepLeftovers } from '../sweeper/leftovers.ts';
import { DEFAULT_TIMINGS } from '../timings.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import { METRIC } from '../observability/metrics.ts';
import type { QueueProducer } from '../queue/port.ts';
import type { SchedulerTimers } from './schedulerTimers.ts';

export interface ForwarderWindowDeps {
  readonly kube: KubePort;
  readonly producer: QueueProducer;
  readonly log: Logger;
  readonly windowMs: number;
  /** When set, timers of runtimes that no longer exist are removed at the end of each window. */
  readonly timers?: Pick<SchedulerTimers, 'sweep'>;
  /** The sweeper's stale period and grace (KROP-3); the runbook's defaults when absent. */
  readonly sweep?: SweepSettings;
}

/** Time kept back from the function's deadline to flush the checkpoint. */
export const DEADLINE_MARGIN_MS = 15_000;

export type WindowResult = ForwarderStats & { readonly windowMs: number; readonly timersRemoved: number };

/**
 * The forwarder started when its first checkpoint was written: that survives cold starts, so
 * the sweeper's grace runs once per deployment, not once per window.
 */
async function forwarderStart(d: ForwarderWindowDeps): Promise<Date> {
  const cm = await d.kube.get(KIND.configMap, checkpointName(RUNTIME_WATCH), FORWARDER_CHECKPOINT.namespace);
  const at = Date.parse(cm?.metadata.creationTimestamp ?? '');
  return Number.isNaN(at) ? new Date() : new Date(at);
}

async function sweep(d: ForwarderWindowDeps): Promise<number> {
  const deps = { kube: d.kube, log: d.log, now: () => new Date(), startedAt: await forwarderStart(d), ...(d.timers ? { timers: d.timers } : {}) };
  const result = await sweepLeftovers(deps, d.sweep ?? { staleAfterMs: DEFAULT_TIMINGS.sweepStaleAfterMs, graceMs: DEFAULT_TIMINGS.sweepGraceMs });
  return 'timers' in result ? result.timers.length + result.jobs.length : 0;
}

function sumStats(all: readonly ForwarderStats[]): ForwarderStats {
  const total: ForwarderStats = { relists: 0, enqueued: 0, skipped: 0, coalesced: 0, watches: 0 };
  for (const s of all) for (const k of Object.keys(total) as (keyof ForwarderStats)[]) total[k] += s[k];
  return total;
}

export function createForwarderHandler(deps: () => ForwarderWindowDeps): (event: unknown, context: Context) => Promise<WindowResult> {
  return async (_event, context) => {
    const d = deps();
    const windowMs = Math.max(1000, Math.min(d.windowMs, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS));
    const watches = watchedBy().map((w) => {
      const checkpoint = new ConfigMapCheckpoint(d.kube, d.log, { name: checkpointName(w) });
      const opts = { kube: d.kube, producer: d.producer, log: d.log, checkpoint, watchTimeoutSeconds: Math.ceil(windowMs / 1000), coalesceMs: COALESCE_MS };
      return { checkpoint, forwarder: new Forwarder(opts, w) };
    });
    const timer = setTimeout(() => {
      for (const w of watches) w.forwarder.stop();
    }, windowMs);
    try {
      await Promise.all(watches.map((w) => w.forwarder.run()));
    } finally {
      clearTimeout(timer);
      await Promise.all(watches.map((w) => w.checkpoint.flush()));
    }
    const stats = sumStats(watches.map((w) => w.forwarder.stats));
    const timersRemoved = await sweep(d);
    d.log.info('forwarder window ended', { windowMs, timersRemoved, ...stats });
    // The heartbeat the forwarder-not-running alarm watches.
    d.log.metric({ metric: METRIC.forwarderWindows, value: 1 });
    return { ...stats, windowMs, timersRemoved };
  };
}

// The forwarder as a scheduled Lambda: each invocation watches for up to one window, resuming
// from the checkpoint in the cluster, and stops before the function's deadline. With a quiet
// period set (ADR 0018) it watches in short passes, stays while changes flow and leaves after
// a pass that sent nothing; the next invocation resumes inside the API server's watch history.
// Without one it watches the whole window, and windows overlap (ADR 0005).
import type { Context } from 'aws-lambda';
import { withDeadline } from '../deadline.ts';
import { ConfigMapCheckpoint } from '../forwarder/configMapCheckpoint.ts';
import { COALESCE_MS, Forwarder, type ForwarderStats } from '../forwarder/forwarder.ts';
import { WindowActivity } from '../forwarder/windowActivity.ts';
import { GoneRuntimes } from '../forwarder/goneRuntimes.ts';
import { ConfigurationVersion } from '../forwarder/configurationWatch.ts';
import { checkpointName, watchedBy } from '../forwarder/watched.ts';
import type { SweepSettings } from '../sweeper/leftovers.ts';
import { DEFAULT_TIMINGS } from '../timings.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import { METRIC } from '../observability/metrics.ts';
import type { QueueProducer } from '../queue/port.ts';
import type { SchedulerTimers } from './schedulerTimers.ts';
import { StallReporter } from '../observability/stallCounts.ts';
import { type Fleet, type WatchedCluster, clustersToWatch, countStalls, sweepClusters } from './windowClusters.ts';

export interface ForwarderWindowDeps {
  /** The deployment's own cluster. */
  readonly kube: KubePort;
  /** The further clusters of a fleet (ADR 0019), watched in the same window. */
  readonly fleet?: Fleet;
  readonly producer: QueueProducer;
  readonly log: Logger;
  readonly windowMs: number;
  /** Leave after a watch pass this long that sent nothing; 0 or unset watches the whole window. */
  readonly quietMs?: number;
  /** When set, timers of runtimes that no longer exist are removed at the end of each window. */
  readonly timers?: Pick<SchedulerTimers, 'sweep'>;
  /** The sweeper's stale period and grace (KROP-3); the runbook's defaults when absent. */
  readonly sweep?: SweepSettings;
}

/** Time kept back from the function's deadline to flush the checkpoint. */
export const DEADLINE_MARGIN_MS = 15_000;

export type WindowResult = ForwarderStats & {
  readonly windowMs: number;
  readonly timersRemoved: number;
  readonly watchedMs: number;
};

/** The sweeper looks at most this often, however often windows start. */
export const SWEEP_EVERY_MS = 5 * 60_000;

function sumStats(all: readonly ForwarderStats[]): ForwarderStats {
  const total: ForwarderStats = { relists: 0, enqueued: 0, skipped: 0, coalesced: 0, watches: 0 };
  for (const s of all) for (const k of Object.keys(total) as (keyof ForwarderStats)[]) total[k] += s[k];
  return total;
}

export function createForwarderHandler(
  deps: () => ForwarderWindowDeps,
): (event: unknown, context: Context) => Promise<WindowResult> {
  // Kept while the function stays warm: what each kind's objects looked like, and the last sweep.
  const seen = new Map<string, Map<string, string>>();
  const gone = new GoneRuntimes();
  // Per cluster: each has a configuration of its own.
  const configurations = new Map<string, ConfigurationVersion>();
  let sweptAt = -Infinity;
  let stalls: StallReporter | undefined;
  return async (_event, context) =>
    withDeadline(context.getRemainingTimeInMillis(), async () => {
      const d = deps();
      const started = Date.now();
      const windowMs = Math.max(1000, Math.min(d.windowMs, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS));
      const { clusters, complete } = await clustersToWatch(d.kube, d.fleet, d.log);
      const pass = passOf(d, windowMs);
      const watches = clusters.flatMap((c) => windowForwarders(d, pass, { seen, gone, configurations }, c));
      await watchUntilWindowEnds(watches, windowMs);
      const watchedMs = Date.now() - started;
      const stats = sumStats(watches.map((w) => w.forwarder.stats));
      const sweepDue = Date.now() - sweptAt >= SWEEP_EVERY_MS;
      const settings = d.sweep ?? {
        staleAfterMs: DEFAULT_TIMINGS.sweepStaleAfterMs,
        graceMs: DEFAULT_TIMINGS.sweepGraceMs,
      };
      const timersRemoved = sweepDue
        ? await sweepClusters({ log: d.log, settings, ...(d.timers ? { timers: d.timers } : {}) }, clusters, complete)
        : 0;
      if (sweepDue) sweptAt = Date.now();
      // The stall alarms' counts, from every runtime, every window.
      stalls ??= new StallReporter(d.log);
      await countStalls(clusters, stalls, d.log);
      d.log.info('forwarder window ended', { windowMs, watchedMs, timersRemoved, ...stats });
      // The heartbeat the forwarder-not-running alarm watches.
      d.log.metric({ metric: METRIC.forwarderWindows, value: 1 });
      return { ...stats, windowMs, timersRemoved, watchedMs };
    });
}

interface Pass {
  readonly seconds: number;
  /** Shared by every watch of the window, in every cluster: they leave together. */
  readonly quiet?: { readonly activity: WindowActivity; readonly afterMs: number };
}

function passOf(d: ForwarderWindowDeps, windowMs: number): Pass {
  const quietMs = Math.min(d.quietMs ?? 0, windowMs);
  // A pass as long as the quiet period: the API server sends its bookmark 2 s before a
  // watch's deadline, so even a quiet pass moves the checkpoint on.
  const seconds = Math.ceil((quietMs > 0 ? quietMs : windowMs) / 1000);
  return { seconds, ...(quietMs > 0 ? { quiet: { activity: new WindowActivity(Date.now()), afterMs: quietMs } } : {}) };
}

/** What the function keeps between windows while it stays warm. */
interface WarmState {
  /** What each kind's objects looked like, per cluster and kind. */
  readonly seen: Map<string, Map<string, string>>;
  readonly gone: GoneRuntimes;
  /** Each cluster's configuration version, by cluster ('' for the deployment's own). */
  readonly configurations: Map<string, ConfigurationVersion>;
}

interface WindowWatch {
  readonly checkpoint: ConfigMapCheckpoint;
  readonly forwarder: Forwarder;
}

async function watchUntilWindowEnds(watches: readonly WindowWatch[], windowMs: number): Promise<void> {
  const timer = setTimeout(() => {
    for (const w of watches) w.forwarder.stop();
  }, windowMs);
  try {
    await Promise.all(watches.map((w) => w.forwarder.run()));
  } finally {
    clearTimeout(timer);
    await Promise.all(watches.map((w) => w.checkpoint.flush()));
  }
}

function windowForwarders(d: ForwarderWindowDeps, pass: Pass, kept: WarmState, target: WatchedCluster): WindowWatch[] {
  const { seen, gone, configurations } = kept;
  const configuration = configurations.get(target.cluster ?? '') ?? new ConfigurationVersion();
  configurations.set(target.cluster ?? '', configuration);
  return watchedBy().map((w) => {
    const name = checkpointName(w);
    const log = target.cluster ? d.log.child({ cluster: target.cluster }) : d.log;
    const checkpoint = new ConfigMapCheckpoint(target.kube, log, { name });
    const key = `${target.cluster ?? ''}/${name}`;
    const known = seen.get(key) ?? new Map<string, string>();
    seen.set(key, known);
    const opts = {
      kube: target.kube,
      producer: d.producer,
      log,
      checkpoint,
      ...(target.cluster ? { cluster: target.cluster } : {}),
      watchTimeoutSeconds: pass.seconds,
      coalesceMs: COALESCE_MS,
      seen: known,
      gone,
      configuration,
      ...(pass.quiet ? { quiet: pass.quiet } : {}),
    };
    return { checkpoint, forwarder: new Forwarder(opts, w) };
  });
}

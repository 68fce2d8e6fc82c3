// A quiet hour, measured: a settled runtime in local mode with nothing changing, watched for
// BENCH_QUIET_SECONDS (60 s by default) and scaled to an hour, plus forwarder windows as AWS
// runs them, scaled down (3 s windows instead of 320 s) to measure what a window costs beyond
// its length. The step invocations, their run times and the log volume are read back from the
// control plane's own metric and log lines. The forwarder's default shape, a window started every
// minute that leaves after a quiet pass, is measured as deployed: whole quiet windows, timed.
// Periodic work slower than the measurement (the 6-hourly token refresh, the 5-minutely drift
// check) is added from the timings.
import type { Context } from 'aws-lambda';
import { FORWARDER_CHECKPOINT } from '../shared/api/constants.ts';
import { createForwarderHandler, DEADLINE_MARGIN_MS } from '../shared/aws/forwarderWindow.ts';
import { controlPlaneRequestsSince, perChange } from './requests.ts';
import { startLocalControlPlane } from '../shared/local/controlPlane.ts';
import { DEFAULT_DRIFT_CHECK_INTERVAL } from '../shared/configuration/schema.ts';
import { parseDuration } from '../shared/api/duration.ts';
import { METRIC } from '../shared/observability/metrics.ts';
import { EmbeddedQueue } from '../shared/queue/embedded.ts';
import { DEFAULT_TIMINGS } from '../shared/timings.ts';
import { auditMark } from '../harness/audit.ts';
import { controlPlaneKube } from '../harness/controlPlane.ts';
import { captureLogger } from '../harness/logs.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../harness/runtime.ts';

const QUIET_SECONDS = Number(process.env['BENCH_QUIET_SECONDS'] ?? 60);
const WINDOW_MS = 3000;
/** Windows timed of each shape (BENCH_WINDOWS); the mean is what a window costs. */
const WINDOWS = Number(process.env['BENCH_WINDOWS'] ?? 5);
const SETTLE_MS = 5000;

export interface QuietHour {
  readonly measuredSeconds: number;
  /** Step invocations per hour and their mean run time, by step. */
  readonly steps: Record<string, { perHour: number; meanMs: number }>;
  readonly forwarder: {
    /** A window that watches always: what it runs beyond its length. */
    readonly overheadMs: number;
    /** A window that leaves when quiet: how long a quiet one runs, whole. */
    readonly quietWindowMs: number;
    readonly quietSeconds: number;
    /** API requests one quiet window of the deployed shape makes, by verb and resource (audit log). */
    readonly requestsPerQuietWindow: Record<string, number>;
    readonly sendsPerWindow: number;
    readonly logBytesPerWindow: number;
  };
  readonly stepLogBytesPerHour: number;
  /** Metric series one step run of a healthy runtime sends: its timing line (a stall adds the gauges). */
  readonly seriesPerStepRun: number;
  /** While the runtime settled: the steps a change wakes and their mean run time, which a relist costs again. */
  readonly relist: { readonly steps: number; readonly meanMs: number };
}

const setsOf = (...defs: { sets: readonly (readonly string[])[] }[]): number =>
  defs.reduce((n, d) => n + d.sets.length, 0);

function runsIn(lines: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.filter((r) => r['message'] === 'metric' && METRIC.reconcileDuration.name in r);
}

async function quietSteps(): Promise<Pick<QuietHour, 'steps' | 'stepLogBytesPerHour' | 'relist'>> {
  const { log, lines, records } = captureLogger('info');
  const cp = startLocalControlPlane({ kube: controlPlaneKube(), log });
  await waitFor('a settled runtime', async () =>
    (await getRuntime())?.status?.observedGeneration === 1 ? true : undefined,
  );
  // Not queue.idle(): that also waits for rechecks armed hours ahead. The first runs settle in well under this.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const from = lines.length;
  await new Promise((r) => setTimeout(r, QUIET_SECONDS * 1000));
  cp.stop();
  await cp.running;
  const scale = 3600 / QUIET_SECONDS;
  const steps: Record<string, { perHour: number; meanMs: number }> = {};
  const settling = runsIn(records().slice(0, from));
  const relist = {
    steps: new Set(settling.map((l) => l['Step'])).size,
    meanMs: Math.round(
      settling.reduce((n, l) => n + Number(l[METRIC.reconcileDuration.name]), 0) / Math.max(1, settling.length),
    ),
  };
  for (const l of runsIn(records().slice(from))) {
    const s = (steps[String(l['Step'])] ??= { perHour: 0, meanMs: 0 });
    s.meanMs = (s.meanMs * s.perHour + Number(l[METRIC.reconcileDuration.name])) / (s.perHour + 1);
    s.perHour += 1;
  }
  for (const s of Object.values(steps)) s.perHour *= scale;
  // The token refresh (registry.auth.mode aws) runs every 6 hours whatever happens.
  const refresh = (steps['token-refresh'] ??= { perHour: 0, meanMs: 300 });
  refresh.perHour += 3_600_000 / DEFAULT_TIMINGS.tokenRefreshIntervalMs;
  // The drift check looks every drift.checkInterval: a measurement shorter than that sees one
  // run or none, so its rate comes from the interval (its run time, when seen, is measured).
  const drift = (steps['drift-check'] ??= { perHour: 0, meanMs: 50 });
  drift.perHour = 3_600_000 / (parseDuration(DEFAULT_DRIFT_CHECK_INTERVAL) ?? 300_000);
  const bytes = lines.slice(from).reduce((n, l) => n + l.length + 1, 0);
  return { steps, stepLogBytesPerHour: Math.round(bytes * scale), relist };
}

type WindowHandler = ReturnType<typeof createForwarderHandler>;

/** Mean time beyond `lengthMs` of WINDOWS windows run one after another. */
async function timeWindows(handler: WindowHandler, context: Context, lengthMs: number): Promise<number> {
  let over = 0;
  for (let i = 0; i < WINDOWS; i++) {
    const t = Date.now();
    await handler({}, context);
    over += Date.now() - t - lengthMs;
  }
  return over / WINDOWS;
}

async function quietWindows(quietSeconds: number): Promise<QuietHour['forwarder']> {
  await kubectl(
    'delete',
    'configmap',
    '-n',
    FORWARDER_CHECKPOINT.namespace,
    FORWARDER_CHECKPOINT.name,
    '--ignore-not-found',
  );
  const { log, lines } = captureLogger('info');
  const producer = new EmbeddedQueue();
  let sends = 0;
  const counting = {
    send: async (m: Parameters<EmbeddedQueue['send']>[0]) => {
      sends++;
      return await producer.send(m);
    },
    deadLetter: (m: Parameters<EmbeddedQueue['deadLetter']>[0]) => producer.deadLetter(m),
  };
  const kube = controlPlaneKube();
  const watching = createForwarderHandler(() => ({ kube, producer: counting, log, windowMs: WINDOW_MS }));
  const leaving = createForwarderHandler(() => ({
    kube,
    producer: counting,
    log,
    windowMs: 60_000,
    quietMs: quietSeconds * 1000,
  }));
  const context = { getRemainingTimeInMillis: () => 60_000 + DEADLINE_MARGIN_MS } as Context;
  // The first window lists from no checkpoint; the quiet ones after it are what an idle month repeats.
  await watching({}, context);
  const [sent, logged] = [sends, lines.length];
  const overheadMs = await timeWindows(watching, context, WINDOW_MS);
  await leaving({}, context);
  const mark = auditMark();
  const quietWindowMs = await timeWindows(leaving, context, 0);
  const requestsPerQuietWindow = perChange(await controlPlaneRequestsSince(mark), WINDOWS);
  producer.stop();
  const bytes = lines.slice(logged).reduce((n, l) => n + l.length + 1, 0);
  return {
    overheadMs: Math.round(overheadMs),
    quietWindowMs: Math.round(quietWindowMs),
    quietSeconds,
    requestsPerQuietWindow,
    sendsPerWindow: (sends - sent) / (2 * WINDOWS + 1),
    logBytesPerWindow: Math.round(bytes / (2 * WINDOWS + 1)),
  };
}

/** `quietSeconds`: the deployed forwarder's quiet pass (the template's AICR_FORWARDER_QUIET_SECONDS). */
export async function measureQuietHour(quietSeconds: number): Promise<QuietHour> {
  await ensureCrds();
  await deleteRuntime();
  // An AICR version the configuration does not pin settles at once with no Job: nothing changes after.
  await createRuntime({ aicrVersion: 'v1.1.0' });
  const steps = await quietSteps();
  const forwarder = await quietWindows(quietSeconds);
  await deleteRuntime();
  return {
    measuredSeconds: QUIET_SECONDS,
    ...steps,
    forwarder,
    seriesPerStepRun: setsOf(METRIC.reconcileDuration, METRIC.messageAge),
  };
}

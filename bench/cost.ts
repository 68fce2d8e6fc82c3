// The idle monthly cost of one cluster and of a fleet of ten, from the quiet hour
// (./quietHour.ts), each function's bundle (its cold import is billed INIT time), the packaged
// template (memory, queues, alarms, dashboard, forwarder window) and ./prices.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundleFigures } from './bundles.ts';
import {
  type CostInputs,
  freeTierCredit,
  monthlyCost,
  operatorPodMonthly,
  privateEndpoints,
  sharedDeploymentPerCluster,
} from './costModel.ts';
import { PRICES } from './prices.ts';
import { STEP_TIMING_METRICS_SETTING } from '../shared/observability/metrics.ts';
import type { QuietHour } from './quietHour.ts';

type Res = { Type: string; Properties: Record<string, unknown> };

/**
 * The shape ADR 0005 chose and ADR 0018 replaced as the default: 320 s windows every 5 minutes, so
 * one always watches.
 */
export const ALWAYS_WATCHING = { windowSeconds: 320, everySeconds: 300 } as const;

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** A rate() schedule expression in seconds. */
export function rateSeconds(expression: string): number {
  const m = /^rate\((\d+) (minute|minutes|hour|hours)\)$/.exec(expression);
  if (!m) throw new Error(`forwarder schedule ${expression}: expected rate(N minutes)`);
  return Number(m[1]) * (m[2]?.startsWith('hour') ? 3600 : 60);
}

/** The default forwarder beside the one that watches always, every window cold and billed whole. */
function alwaysWatchingInputs(i: CostInputs, quiet: QuietHour): CostInputs {
  const { windowSeconds, everySeconds } = ALWAYS_WATCHING;
  return {
    ...i,
    forwarder: {
      ...i.forwarder,
      everySeconds,
      billedMsPerWindow: windowSeconds * 1000 + quiet.forwarder.overheadMs,
      coldStartsPerHour: 3600 / everySeconds,
    },
  };
}

function scenario(i: CostInputs) {
  const single = monthlyCost(i);
  const credit = freeTierCredit(i, 10);
  return {
    single,
    singleWithFreeTier: round2(single.total - freeTierCredit(i, 1)),
    fleetOfTen: {
      total: round2(single.total * 10 - credit),
      perCluster: round2(single.total - credit / 10),
      freeTierCredit: credit,
    },
  };
}

/** A setting's value under the default parameters: a literal, or an Fn::If on a condition that is off or on. */
function resolvesTrue(value: unknown, off: ReadonlySet<string>): boolean {
  if (value === undefined) return true;
  const branch = (value as { 'Fn::If'?: [string, unknown, unknown] })['Fn::If'];
  if (branch) return resolvesTrue(off.has(branch[0]) ? branch[2] : branch[1], off);
  return String(value) !== 'false';
}

export function templateFacts(dir: string) {
  const t = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, Res & { Condition?: string }>;
    Parameters: Record<string, { Default?: string }>;
  };
  // What a deployment with the default parameters holds: the dashboard and the detailed alarms are opt-in.
  const off = new Set([
    t.Parameters['CreateDashboard']?.Default === 'true' ? '' : 'WithDashboard',
    t.Parameters['DetailedAlarms']?.Default === 'true' ? '' : 'WithDetailedAlarms',
  ]);
  const all = Object.values(t.Resources).filter((r) => r.Condition === undefined || !off.has(r.Condition));
  const fns = Object.fromEntries(
    all
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .map((r) => [String(r.Properties['FunctionName']).replace(/^.*-bench-/, ''), r.Properties]),
  );
  const alarmMetrics = all
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .reduce(
      (n, r) =>
        n +
        (Array.isArray(r.Properties['Metrics'])
          ? (r.Properties['Metrics'] as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length
          : 1),
      0,
    );
  const mapped = new Set(
    all
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')
      .map((r) => JSON.stringify(r.Properties['EventSourceArn'])),
  );
  const queues = Object.entries(t.Resources).filter(
    ([id, r]) => r.Type === 'AWS::SQS::Queue' && mapped.has(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] })),
  );
  const fifo = queues.filter(([, r]) => r.Properties['FifoQueue'] === true).length;
  const env = (fns['forwarder']?.['Environment'] as { Variables: Record<string, string> }).Variables;
  const schedule = all.find(
    (r) => r.Type === 'AWS::Scheduler::Schedule' && JSON.stringify(r.Properties['Target']).includes('Forwarder'),
  );
  const forwarder = {
    everySeconds: rateSeconds(String(schedule?.Properties['ScheduleExpression'])),
    windowSeconds: Number(env['AICR_FORWARDER_WINDOW_SECONDS']),
    quietSeconds: Number(env['AICR_FORWARDER_QUIET_SECONDS']),
  };
  // A step run's timings are metric series only when the default parameters make them so.
  const timing = (fns['drift-check']?.['Environment'] as { Variables: Record<string, unknown> } | undefined)?.Variables[
    STEP_TIMING_METRICS_SETTING
  ];
  const stepTimingMetrics = resolvesTrue(timing, off);
  return {
    fns,
    alarmMetrics,
    stepTimingMetrics,
    dashboards: all.filter((r) => r.Type === 'AWS::CloudWatch::Dashboard').length,
    polledQueues: { fifo, standard: queues.length - fifo },
    forwarder,
  };
}

export function costFigures(quiet: QuietHour, bundles: readonly BundleFigures[], dir: string) {
  const facts = templateFacts(dir);
  const memory = (fn: string): number => Number(facts.fns[fn]?.['MemorySize'] ?? 1024);
  const initMs = (fn: string): number => bundles.find((b) => b.function === fn)?.coldImportMs.median ?? 0;
  const steps = Object.fromEntries(
    Object.entries(quiet.steps).map(([step, s]) => [step, { ...s, memoryMb: memory(step), initMs: initMs(step) }]),
  );
  // With the dashboard every step run's timings are series too (the fleet's figure below).
  const timingSeries = Object.values(quiet.steps).reduce(
    (n, s) => n + Math.min(1, s.perHour) * quiet.seriesPerStepRun,
    0,
  );
  const stepSeries = facts.stepTimingMetrics ? timingSeries : 0;
  const f = facts.forwarder;
  const windowsPerHour = 3600 / f.everySeconds;
  const leaves = f.quietSeconds > 0;
  const inputs: CostInputs = {
    steps,
    forwarder: {
      everySeconds: f.everySeconds,
      billedMsPerWindow: leaves ? quiet.forwarder.quietWindowMs : f.windowSeconds * 1000 + quiet.forwarder.overheadMs,
      // A function started every minute stays warm; assume a fresh environment once an hour.
      coldStartsPerHour: f.everySeconds < 300 ? 1 : windowsPerHour,
      initMs: initMs('forwarder'),
      memoryMb: memory('forwarder'),
      sendsPerWindow: quiet.forwarder.sendsPerWindow,
    },
    polledQueues: facts.polledQueues,
    alarmMetrics: facts.alarmMetrics,
    dashboards: facts.dashboards,
    // The forwarder's heartbeat is sent every hour; step metrics in the hours a step runs.
    metricSeriesPerHour: Math.round((1 + stepSeries) * 100) / 100,
    logBytesPerHour: quiet.stepLogBytesPerHour + windowsPerHour * quiet.forwarder.logBytesPerWindow,
  };
  const asDeployed = scenario(inputs);
  // A fleet keeps one dashboard (`dashboard=false` on the other deployments).
  const oneDashboard = scenario({ ...inputs, dashboards: inputs.dashboards / 10 });
  const alwaysWatching = scenario(alwaysWatchingInputs(inputs, quiet));
  return {
    prices: PRICES,
    inputs,
    ...asDeployed,
    oneDashboardPerFleet: oneDashboard.fleetOfTen,
    alwaysWatching,
    oneDeploymentForTen: sharedDeploymentPerCluster(
      { ...inputs, dashboards: 1, metricSeriesPerHour: Math.round((1 + timingSeries) * 100) / 100 },
      10,
    ),
    quietRequests: quiet.forwarder.requestsPerQuietWindow,
    privateEndpoints: privateEndpoints(),
    operatorPod: operatorPodMonthly(),
  };
}

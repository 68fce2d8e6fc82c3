// P6: the idle monthly cost of one cluster and of a fleet of ten, from the quiet hour
// (./quietHour.ts), each function's bundle (its cold import is billed INIT time), the packaged
// template (memory, queues, alarms, dashboard, forwarder window) and ./prices.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BundleFigures } from './bundles.ts';
import { type CostInputs, freeTierCredit, monthlyCost, operatorPodMonthly, privateEndpoints } from './costModel.ts';
import { PRICES } from './prices.ts';
import type { QuietHour } from './quietHour.ts';

type Res = { Type: string; Properties: Record<string, unknown> };

export const COST_GOALS = { singleMonthly: 3, perClusterInFleetOfTen: 1 } as const;

/** The cheaper shape ADR 0016 weighs: 30 s forwarder windows every 5 minutes, one dashboard per fleet. */
export const LEAN_WINDOW_SECONDS = 30;

const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Each short window starts past the watch history, so it relists and wakes every step of the runtime once. */
function leanInputs(i: CostInputs, quiet: QuietHour, memoryMb: number, initMs: number): CostInputs {
  const windowsPerHour = 3600 / i.forwarder.everySeconds;
  const relist = { perHour: windowsPerHour * quiet.relist.steps, meanMs: quiet.relist.meanMs, memoryMb, initMs };
  return {
    ...i,
    steps: { ...i.steps, relist },
    forwarder: { ...i.forwarder, windowSeconds: LEAN_WINDOW_SECONDS, sendsPerWindow: quiet.relist.steps },
    dashboards: i.dashboards / 10,
    metricSeriesPerHour: i.metricSeriesPerHour + quiet.relist.steps * quiet.seriesPerStepRun,
  };
}

function scenario(i: CostInputs) {
  const single = monthlyCost(i);
  const credit = freeTierCredit(i, 10);
  return { single, singleWithFreeTier: round2(single.total - freeTierCredit(i, 1)), fleetOfTen: { total: round2(single.total * 10 - credit), perCluster: round2(single.total - credit / 10), freeTierCredit: credit } };
}

function templateFacts(dir: string) {
  const t = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as { Resources: Record<string, Res> };
  const all = Object.values(t.Resources);
  const fns = Object.fromEntries(all.filter((r) => r.Type === 'AWS::Lambda::Function').map((r) => [String(r.Properties['FunctionName']).replace(/^.*-bench-/, ''), r.Properties]));
  const alarmMetrics = all.filter((r) => r.Type === 'AWS::CloudWatch::Alarm').reduce((n, r) => n + (Array.isArray(r.Properties['Metrics']) ? (r.Properties['Metrics'] as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length : 1), 0);
  const mapped = new Set(all.filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping').map((r) => JSON.stringify(r.Properties['EventSourceArn'])));
  const queues = Object.entries(t.Resources).filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && mapped.has(JSON.stringify({ 'Fn::GetAtt': [id, 'Arn'] })));
  const fifo = queues.filter(([, r]) => r.Properties['FifoQueue'] === true).length;
  const env = (fns['forwarder']?.['Environment'] as { Variables: Record<string, string> }).Variables;
  return { fns, alarmMetrics, dashboards: all.filter((r) => r.Type === 'AWS::CloudWatch::Dashboard').length, polledQueues: { fifo, standard: queues.length - fifo }, windowSeconds: Number(env['AICR_FORWARDER_WINDOW_SECONDS']) };
}

export function costFigures(quiet: QuietHour, bundles: readonly BundleFigures[], dir: string) {
  const facts = templateFacts(dir);
  const memory = (fn: string): number => Number(facts.fns[fn]?.['MemorySize'] ?? 1024);
  const initMs = (fn: string): number => bundles.find((b) => b.function === fn)?.coldImportMs.median ?? 0;
  const steps = Object.fromEntries(Object.entries(quiet.steps).map(([step, s]) => [step, { ...s, memoryMb: memory(step), initMs: initMs(step) }]));
  const stepSeries = Object.values(quiet.steps).reduce((n, s) => n + Math.min(1, s.perHour) * quiet.seriesPerStepRun, 0);
  const windowsPerHour = 3600 / 300;
  const inputs: CostInputs = {
    steps,
    forwarder: { windowSeconds: facts.windowSeconds, everySeconds: 300, overheadMs: quiet.forwarder.overheadMs + initMs('forwarder'), memoryMb: memory('forwarder'), sendsPerWindow: quiet.forwarder.sendsPerWindow },
    polledQueues: facts.polledQueues,
    alarmMetrics: facts.alarmMetrics,
    dashboards: facts.dashboards,
    // The forwarder's heartbeat is sent every hour; step metrics in the hours a step runs.
    metricSeriesPerHour: Math.round((1 + stepSeries) * 100) / 100,
    logBytesPerHour: quiet.stepLogBytesPerHour + windowsPerHour * quiet.forwarder.logBytesPerWindow,
  };
  const asDeployed = scenario(inputs);
  const lean = scenario(leanInputs(inputs, quiet, memory('resolve'), initMs('resolve')));
  return { prices: PRICES, inputs, ...asDeployed, lean, privateEndpoints: privateEndpoints(), operatorPod: operatorPodMonthly(), goals: COST_GOALS };
}

export function costMisses(c: ReturnType<typeof costFigures>): string[] {
  const missed: string[] = [];
  if (c.single.total > COST_GOALS.singleMonthly) missed.push(`cost (P6): one cluster $${c.single.total}/month > $${COST_GOALS.singleMonthly}`);
  if (c.fleetOfTen.perCluster > COST_GOALS.perClusterInFleetOfTen) missed.push(`cost (P6): $${c.fleetOfTen.perCluster}/cluster in a fleet of ten > $${COST_GOALS.perClusterInFleetOfTen}`);
  return missed;
}

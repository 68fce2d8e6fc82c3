// The idle monthly cost of one deployment (one cluster), from a measured quiet hour, the
// packaged template and the list prices in ./prices.ts. Pure, so its arithmetic is unit-tested.
import { IDLE_RECEIVES_PER_MINUTE, MONTH_HOURS, PRICES } from './prices.ts';

export interface StepQuiet {
  /** Invocations in an hour with nothing changing, measured (scaled) plus periodic work from the timings. */
  readonly perHour: number;
  /** Mean run time of one invocation, ms. */
  readonly meanMs: number;
  readonly memoryMb: number;
  /** Cold import of the function's bundle, ms: billed as INIT when an idle function starts cold. */
  readonly initMs: number;
}

export interface CostInputs {
  readonly steps: Readonly<Record<string, StepQuiet>>;
  readonly forwarder: ForwarderQuiet;
  /** Queues an event source mapping polls, by kind. */
  readonly polledQueues: { readonly fifo: number; readonly standard: number };
  /** Metrics in the template's alarms (each is billed). */
  readonly alarmMetrics: number;
  readonly dashboards: number;
  /** Custom metric series sent in a quiet hour (each billed for the hours it is sent). */
  readonly metricSeriesPerHour: number;
  /** Log bytes written in a quiet hour (all functions). */
  readonly logBytesPerHour: number;
}

export interface ForwarderQuiet {
  /** How often the schedule starts a window. */
  readonly everySeconds: number;
  /**
   * What one quiet window runs, ms: its whole length when it watches always, one pass when it
   * leaves when quiet; measured.
   */
  readonly billedMsPerWindow: number;
  /**
   * Cold starts an hour, each billing the cold import: every window when windows are minutes apart,
   * about one an hour when a window starts every minute.
   */
  readonly coldStartsPerHour: number;
  readonly initMs: number;
  readonly memoryMb: number;
  readonly sendsPerWindow: number;
}

export type LineItems = Record<string, number>;

const cents = (n: number): number => Math.round(n * 100) / 100;
const gbSeconds = (ms: number, memoryMb: number): number => (ms / 1000) * (memoryMb / 1024);

/**
 * One deployment's monthly cost by line item, before free tiers; SQS polling at the floor and at
 * the field-report rate.
 */
export function monthlyCost(i: CostInputs): { items: LineItems; total: number; sqsPollingHigh: number } {
  const runsPerMonth = (MONTH_HOURS * 3600) / i.forwarder.everySeconds;
  const f = i.forwarder;
  const forwarderGbS =
    runsPerMonth * gbSeconds(f.billedMsPerWindow, f.memoryMb) +
    f.coldStartsPerHour * MONTH_HOURS * gbSeconds(f.initMs, f.memoryMb);
  let stepGbS = 0;
  let stepRuns = 0;
  for (const s of Object.values(i.steps)) {
    const runs = s.perHour * MONTH_HOURS;
    stepRuns += runs;
    // An idle function is cold at nearly every invocation; INIT is billed since 2025-08.
    stepGbS += runs * gbSeconds(s.meanMs + s.initMs, s.memoryMb);
  }
  const polls = (rate: number): number => rate * 60 * MONTH_HOURS;
  const pollCost = (rate: number): number =>
    (polls(rate) *
      (i.polledQueues.fifo * PRICES.sqsFifoPerMillion + i.polledQueues.standard * PRICES.sqsStandardPerMillion)) /
    1e6;
  const sends = runsPerMonth * i.forwarder.sendsPerWindow + stepRuns;
  const items: LineItems = {
    lambdaForwarder: cents(forwarderGbS * PRICES.lambdaArmGbSecond),
    lambdaSteps: cents(stepGbS * PRICES.lambdaArmGbSecond),
    lambdaRequests: cents(((runsPerMonth + stepRuns) * PRICES.lambdaRequestsPerMillion) / 1e6),
    sqsPolling: cents(pollCost(IDLE_RECEIVES_PER_MINUTE.floor)),
    sqsSends: cents((sends * PRICES.sqsFifoPerMillion) / 1e6),
    scheduler: cents((runsPerMonth * PRICES.schedulerPerMillion) / 1e6),
    customMetrics: cents(i.metricSeriesPerHour * PRICES.customMetricMonth),
    alarms: cents(i.alarmMetrics * PRICES.alarmMetricMonth),
    dashboard: cents(i.dashboards * PRICES.dashboardMonth),
    logs: cents(((i.logBytesPerHour * MONTH_HOURS) / 1e9) * PRICES.logsIngestGb),
  };
  const total = cents(Object.values(items).reduce((a, b) => a + b, 0));
  return { items, total, sqsPollingHigh: cents(pollCost(IDLE_RECEIVES_PER_MINUTE.fieldReport)) };
}

/** Account free tiers a fleet shares (per month): what they take off, spread over the fleet. */
export function freeTierCredit(i: CostInputs, clusters: number): number {
  const one = monthlyCost(i).items;
  const lambdaGbS = ((one.lambdaForwarder ?? 0) + (one.lambdaSteps ?? 0)) / PRICES.lambdaArmGbSecond;
  const lambda = Math.min(400_000, lambdaGbS * clusters) * PRICES.lambdaArmGbSecond;
  // One million SQS requests a month are free: at most one million's price.
  const sqs = Math.min(PRICES.sqsFifoPerMillion, ((one.sqsPolling ?? 0) + (one.sqsSends ?? 0)) * clusters);
  const alarms = Math.min(10, i.alarmMetrics * clusters) * PRICES.alarmMetricMonth;
  const metrics = Math.min(10, i.metricSeriesPerHour * clusters) * PRICES.customMetricMonth;
  const dashboards = Math.min(3, i.dashboards * clusters) * PRICES.dashboardMonth;
  return cents(lambda + sqs + alarms + metrics + dashboards);
}

/**
 * One deployment serving `clusters` clusters (ADR 0019), from one cluster's figures. Alarms,
 * dashboard, queue polling, metric series and the forwarder's schedule are paid once; the
 * forwarder is given twice the memory for every cluster's watches; step runs, requests, sends
 * and logs grow with the clusters. Before free tiers.
 */
export function sharedDeploymentPerCluster(i: CostInputs, clusters: number): number {
  const one = monthlyCost(i).items;
  const v = (k: string): number => one[k] ?? 0;
  // Metric dimensions name the step, never the cluster: the fleet sends the same series as one cluster.
  const perCluster = v('lambdaSteps') + v('sqsSends') + v('logs') + v('lambdaRequests');
  const once =
    v('alarms') + v('dashboard') + v('sqsPolling') + v('scheduler') + 2 * v('lambdaForwarder') + v('customMetrics');
  return cents((once + perCluster * clusters) / clusters);
}

export interface Privately {
  readonly endpoints: readonly string[];
  readonly azs: number;
  readonly monthly: number;
  readonly natAlternative: number;
}

/**
 * Interface endpoints the functions in a private cluster's VPC need, and their price (shared by
 * every deployment in that VPC).
 */
export function privateEndpoints(azs = 2): Privately {
  const endpoints = ['sqs', 'scheduler', 'ecr.api', 'ecr.dkr', 'eks', 'sts'];
  return {
    endpoints,
    azs,
    monthly: cents(endpoints.length * azs * PRICES.vpcEndpointAzHour * MONTH_HOURS),
    natAlternative: cents(PRICES.natGatewayHour * MONTH_HOURS),
  };
}

/** An always-on operator pod on an existing node, for comparison. */
export function operatorPodMonthly(): number {
  return cents(PRICES.operatorPodShareHour * MONTH_HOURS);
}

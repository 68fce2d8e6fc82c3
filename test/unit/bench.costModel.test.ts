import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type CostInputs,
  freeTierCredit,
  monthlyCost,
  privateEndpoints,
  sharedDeploymentPerCluster,
} from '../../bench/costModel.ts';
import { MONTH_HOURS, PRICES } from '../../bench/prices.ts';

const quiet: CostInputs = {
  steps: { 'token-refresh': { perHour: 1 / 6, meanMs: 300, memoryMb: 256, initMs: 200 } },
  forwarder: {
    everySeconds: 300,
    billedMsPerWindow: 321_000,
    coldStartsPerHour: 0,
    initMs: 0,
    memoryMb: 128,
    sendsPerWindow: 0,
  },
  polledQueues: { fifo: 4, standard: 1 },
  alarmMetrics: 28,
  dashboards: 1,
  metricSeriesPerHour: 2,
  logBytesPerHour: 100_000,
};

test('P6 the forwarder costs its windows around the clock: runs a month times (window + overhead) in GB-seconds at the arm64 price', () => {
  const { items } = monthlyCost(quiet);
  const runs = (MONTH_HOURS * 3600) / 300;
  const expected = runs * 321 * (128 / 1024) * PRICES.lambdaArmGbSecond;
  assert.equal(items['lambdaForwarder'], Math.round(expected * 100) / 100);
  assert.ok(Math.abs((items['lambdaForwarder'] ?? 0) - 4.69) < 0.02, String(items['lambdaForwarder']));
});

test('P6 a forwarder started every minute that leaves when quiet bills one short pass a minute and about one cold import an hour', () => {
  const leaving: CostInputs = {
    ...quiet,
    forwarder: {
      everySeconds: 60,
      billedMsPerWindow: 5200,
      coldStartsPerHour: 1,
      initMs: 60,
      memoryMb: 128,
      sendsPerWindow: 0,
    },
  };
  const { items } = monthlyCost(leaving);
  const expected = (MONTH_HOURS * 60 * 5.2 + MONTH_HOURS * 0.06) * (128 / 1024) * PRICES.lambdaArmGbSecond;
  assert.equal(items['lambdaForwarder'], Math.round(expected * 100) / 100);
  assert.ok(
    (items['lambdaForwarder'] ?? 0) < (monthlyCost(quiet).items['lambdaForwarder'] ?? 0) / 10,
    'a tenth of watching always, or less',
  );
  // Five times the windows: five times the (free-tier) Scheduler invocations and Lambda requests.
  assert.equal(
    items['lambdaRequests'],
    Math.round(((MONTH_HOURS * 60 * 0.2) / 1e6) * 100 + (((MONTH_HOURS / 6) * 0.2) / 1e6) * 100) / 100,
  );
});

test('P6 alarms, dashboard and idle queue polling are billed from the template counts', () => {
  const { items, total, sqsPollingHigh } = monthlyCost(quiet);
  assert.equal(items['alarms'], 2.8);
  assert.equal(items['dashboard'], 3);
  // 6 receives a minute on each of 4 FIFO queues and 1 standard queue.
  assert.equal(items['sqsPolling'], Math.round(((6 * 60 * MONTH_HOURS * (4 * 0.5 + 0.4)) / 1e6) * 100) / 100);
  assert.ok(sqsPollingHigh > (items['sqsPolling'] ?? 0));
  assert.equal(total, Math.round(Object.values(items).reduce((a, b) => a + b, 0) * 100) / 100);
});

test('P6 free tiers are per account: a fleet of ten shares one allowance, so each cluster gets a tenth of it', () => {
  const one = freeTierCredit(quiet, 1);
  const ten = freeTierCredit(quiet, 10);
  assert.ok(ten >= one);
  assert.ok(ten / 10 < one, 'each cluster of a fleet gets less than a lone cluster');
  // Ten alarm metrics and three dashboards at most.
  assert.ok(
    ten <=
      400_000 * PRICES.lambdaArmGbSecond +
        PRICES.sqsFifoPerMillion +
        10 * PRICES.alarmMetricMonth +
        10 * PRICES.customMetricMonth +
        3 * PRICES.dashboardMonth +
        1e-9,
  );
});

test('private clusters: six interface endpoints in two AZs at $0.01 an AZ-hour', () => {
  const p = privateEndpoints(2);
  assert.deepEqual(p.endpoints, ['sqs', 'scheduler', 'ecr.api', 'ecr.dkr', 'eks', 'sts']);
  assert.equal(p.monthly, Math.round(6 * 2 * 0.01 * MONTH_HOURS * 100) / 100);
});

test('P6 one deployment serving ten clusters pays alarms, dashboard and queue polling once: each cluster a tenth of them plus its own step runs', () => {
  const { items } = monthlyCost(quiet);
  const fixed = (items['alarms'] ?? 0) + (items['dashboard'] ?? 0) + (items['sqsPolling'] ?? 0);
  const shared = sharedDeploymentPerCluster(quiet, 10);
  assert.ok(shared < monthlyCost(quiet).total / 4, `${shared} is well under a deployment of its own`);
  assert.ok(shared >= fixed / 10, 'never below its share of what is paid once');
  assert.ok(
    sharedDeploymentPerCluster(quiet, 1) >= monthlyCost(quiet).total,
    'a fleet of one pays at least a deployment of its own',
  );
});

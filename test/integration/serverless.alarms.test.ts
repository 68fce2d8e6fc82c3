// The packaged template's alarms: a default set of seven alarm metrics, each something a person
// must hear about, and the diagnostic ones behind detailedAlarms. Pages wait for two of three
// periods unless they mean a person must act now; the stall alarms read the counts the
// forwarder sends every window, so missing data is no stall (OBS-3, FLT-2).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slsPackage } from '../../harness/sls.ts';

type Metric = {
  MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] } };
};
type Alarm = {
  Condition?: string;
  Properties: {
    AlarmName: string;
    MetricName?: string;
    Dimensions?: { Name: string; Value: unknown }[];
    Metrics?: Metric[];
    EvaluationPeriods: number;
    DatapointsToAlarm: number;
    TreatMissingData: string;
    AlarmActions: unknown;
  };
};
type Resource = { Type: string; Condition?: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource>;
let parameters: Record<string, { Default?: string }>;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aicr-sls-alarms-'));
  await slsPackage(dir);
  const t = JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, Resource>;
    Parameters: Record<string, { Default?: string }>;
  };
  resources = t.Resources;
  parameters = t.Parameters;
});

const alarms = (): Alarm[] =>
  Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm') as unknown as Alarm[];
const short = (a: Alarm): string => a.Properties.AlarmName.replace('aicr-control-plane-ci-', '');
const named = (n: string): Alarm | undefined => alarms().find((a) => short(a) === n);
const metricCount = (a: Alarm): number =>
  a.Properties.Metrics ? a.Properties.Metrics.filter((m) => m.MetricStat).length : 1;
const pages = (a: Alarm): boolean => JSON.stringify(a.Properties.AlarmActions).includes('PageTopicArn');

test('OBS-3 the default alarms are seven alarm metrics, each one a person must hear about; the rest wait for detailedAlarms', () => {
  const defaults = alarms().filter((a) => a.Condition === undefined);
  assert.deepEqual(defaults.map(short).sort(), [
    'awaiting-approval',
    'credentials-stale',
    'dead-letters',
    'forwarder-not-running',
    'kube-unreachable',
    'stalled-needs-person',
  ]);
  assert.equal(
    defaults.reduce((n, a) => n + metricCount(a), 0),
    7,
  );
  for (const a of alarms().filter((x) => x.Condition !== undefined))
    assert.equal(a.Condition, 'WithDetailedAlarms', `${short(a)} is detailed`);
  assert.equal(parameters['DetailedAlarms']?.Default, 'false');
  assert.equal(parameters['CreateDashboard']?.Default, 'false', 'the dashboard is opt-in');
});

test('OBS-3 pages wait for two of three periods, except those that mean a person must act now; notifications never page', () => {
  const actNow = new Set(['stalled-needs-person', 'credentials-stale', 'dead-letters', 'aicr-job-pending']);
  for (const a of alarms().filter(pages)) {
    const p = a.Properties;
    if (actNow.has(short(a)))
      assert.deepEqual([p.EvaluationPeriods, p.DatapointsToAlarm], [1, 1], `${short(a)} pages at once`);
    else
      assert.deepEqual([p.EvaluationPeriods, p.DatapointsToAlarm], [3, 2], `${short(a)} pages on two of three periods`);
  }
  for (const n of ['awaiting-approval', 'stalled-retrying', 'aicr-job-failures'])
    assert.equal(pages(named(n) as Alarm), false, `${n} notifies`);
});

test('OBS-3 the stall alarms watch the service-wide counts, no runtime dimension, and read missing data as no stall; the stopped forwarder breaches', () => {
  for (const n of ['stalled-needs-person', 'credentials-stale', 'awaiting-approval', 'stalled-retrying']) {
    const p = named(n)?.Properties;
    assert.deepEqual(
      p?.Dimensions?.map((d) => d.Name),
      ['service'],
      `${n}: one series per deployment`,
    );
    assert.equal(p?.TreatMissingData, 'notBreaching');
  }
  assert.equal(named('forwarder-not-running')?.Properties.TreatMissingData, 'breaching');
});

test('FLT-2 every queue dead-letters into a queue the one default dead-letter alarm watches, as do the forwarder schedule and every timer; every function has its detailed errors alarm', () => {
  const queues = Object.entries(resources).filter(([, r]) => r.Type === 'AWS::SQS::Queue');
  const targets = new Set(
    queues.flatMap(([, q]) =>
      [
        (q.Properties['RedrivePolicy'] as { deadLetterTargetArn: { 'Fn::GetAtt': string[] } } | undefined)
          ?.deadLetterTargetArn['Fn::GetAtt'][0],
      ].filter((t) => t !== undefined),
    ),
  );
  assert.deepEqual([...targets].sort(), ['DelayDlq', 'StepDlq']);
  const deadLetters = named('dead-letters');
  assert.equal(deadLetters?.Condition, undefined, 'in the default set');
  const watched = (deadLetters?.Properties.Metrics ?? []).flatMap((m) =>
    m.MetricStat ? [m.MetricStat.Metric.Dimensions[0]?.Value] : [],
  );
  assert.deepEqual(watched, [{ 'Fn::GetAtt': ['StepDlq', 'QueueName'] }, { 'Fn::GetAtt': ['DelayDlq', 'QueueName'] }]);
  assert.equal(named('delay-dead-letters'), undefined, 'folded into dead-letters');
  // Scheduler's dead letters: the forwarder's schedule and each function's one-time timers.
  const schedules = Object.values(resources).filter((r) => r.Type === 'AWS::Scheduler::Schedule');
  assert.ok(schedules.length > 0);
  for (const s of schedules)
    assert.deepEqual((s.Properties['Target'] as { DeadLetterConfig?: unknown }).DeadLetterConfig, {
      Arn: { 'Fn::GetAtt': ['DelayDlq', 'Arn'] },
    });
  for (const f of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
    const env = (f.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    if (env['AICR_TIMER_ROLE_ARN'] !== undefined)
      assert.deepEqual(
        env['AICR_TIMER_DLQ_ARN'],
        { 'Fn::GetAtt': ['DelayDlq', 'Arn'] },
        `${String(f.Properties['FunctionName'])} dead-letters its timers`,
      );
  }
  assert.notEqual(
    resources['DelayDlq']?.Properties['FifoQueue'],
    true,
    'Scheduler dead-letters only to a standard queue',
  );
  for (const [, q] of queues)
    assert.equal(
      q.Properties['SqsManagedSseEnabled'],
      true,
      `${String(q.Properties['QueueName'])} is encrypted explicitly`,
    );
  for (const f of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) {
    const fn = String(f.Properties['FunctionName']);
    const errors = named(`${fn.replace('aicr-control-plane-ci-', '')}-errors`);
    const watched = (errors?.Properties.Metrics ?? []).flatMap((m) =>
      m.MetricStat ? [`${m.MetricStat.Metric.MetricName}:${String(m.MetricStat.Metric.Dimensions[0]?.Value)}`] : [],
    );
    assert.deepEqual(watched, [`Errors:${fn}`, `Throttles:${fn}`]);
  }
});

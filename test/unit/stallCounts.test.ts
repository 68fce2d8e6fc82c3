// The stall alarms count stalled runtimes per class from a list of every runtime, each window:
// a runtime that waits for a person and is not written again stays counted, whatever the others
// do, and the line names the runtimes behind each count (OBS-3).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countStalls } from '../../shared/aws/windowClusters.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { METRIC } from '../../shared/observability/metrics.ts';
import { StallReporter, stallCounts } from '../../shared/observability/stallCounts.ts';
import { captureLogger } from '../../harness/logs.ts';

function runtime(name: string, conditions: { type: string; status: string; reason: string }[]): RuntimeObject {
  const full = conditions.map((c) => ({
    ...c,
    message: '',
    lastTransitionTime: '2026-12-01T00:00:00Z',
    observedGeneration: 1,
  }));
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name, uid: `u-${name}`, generation: 1 },
    spec: {},
    status: { conditions: full },
  } as RuntimeObject;
}

const blocked = (name: string) => runtime(name, [{ type: 'Resolved', status: 'False', reason: 'InvalidSpec' }]);
const healthy = (name: string) => runtime(name, [{ type: 'Resolved', status: 'True', reason: 'Resolved' }]);
const approving = (name: string) => runtime(name, [{ type: 'Released', status: 'False', reason: 'AwaitingApproval' }]);

const value = (line: Record<string, unknown> | undefined, name: string): unknown => line?.[name];

test('OBS-3 two stalled runtimes in a fleet keep the count at 2 when a third runtime changes, and the line names them', () => {
  const { log, records } = captureLogger('info');
  const reporter = new StallReporter(log);
  const a = { name: 'cluster', runtime: blocked('cluster') };
  const b = { name: 'gpu-b/cluster', runtime: blocked('cluster') };
  reporter.report([a, b, { name: 'gpu-c/cluster', runtime: approving('cluster') }]);
  // The third runtime is approved and written again; the first two are not looked at.
  reporter.report([a, b, { name: 'gpu-c/cluster', runtime: healthy('cluster') }]);
  const lines = records().filter((r) => METRIC.stalledNeedsPerson.name in r);
  assert.equal(lines.length, 2, 'one line per window while something is stalled');
  assert.deepEqual(
    lines.map((l) => value(l, METRIC.stalledNeedsPerson.name)),
    [2, 2],
    'still 2 after the third runtime changed',
  );
  assert.deepEqual(
    lines.map((l) => value(l, METRIC.awaitingApproval.name)),
    [1, 0],
  );
  assert.equal(lines[1]?.['runtimes'], 'StalledNeedsPerson: cluster (InvalidSpec), gpu-b/cluster (InvalidSpec)');
});

test('OBS-3 counts go out while something is stalled, once more at 0 when it all clears, and not at all for a healthy deployment', () => {
  const { log, records } = captureLogger('info');
  const reporter = new StallReporter(log);
  assert.equal(
    reporter.report([{ name: 'cluster', runtime: healthy('cluster') }]),
    undefined,
    'nothing sent, nothing billed',
  );
  reporter.report([{ name: 'cluster', runtime: blocked('cluster') }]);
  reporter.report([{ name: 'cluster', runtime: healthy('cluster') }]);
  assert.equal(reporter.report([{ name: 'cluster', runtime: healthy('cluster') }]), undefined);
  assert.deepEqual(
    records().map((r) => r[METRIC.stalledNeedsPerson.name]),
    [1, 0],
  );
});

test('a runtime counts once per class however many of its conditions show it, and every class is on the line', () => {
  const twice = runtime('cluster', [
    { type: 'Resolved', status: 'False', reason: 'InvalidSpec' },
    { type: 'Released', status: 'False', reason: 'TransitionBlocked' },
    { type: 'EngineAvailable', status: 'False', reason: 'RegistryCredentialsStale' },
  ]);
  const p = stallCounts([{ name: 'cluster', runtime: twice }]);
  const all = Object.fromEntries(
    [{ metric: p.metric, value: p.value }, ...(p.more ?? [])].map((m) => [m.metric.name, m.value]),
  );
  assert.deepEqual(all, {
    [METRIC.awaitingApproval.name]: 0,
    [METRIC.credentialsStale.name]: 1,
    [METRIC.stalledNeedsPerson.name]: 1,
    [METRIC.stalledRetrying.name]: 0,
  });
});

function listing(items: RuntimeObject[] | Error): KubePort {
  return {
    list: () => (items instanceof Error ? Promise.reject(items) : Promise.resolve({ items, resourceVersion: '1' })),
  } as unknown as KubePort;
}

test("OBS-3 a fleet's counts cover every cluster and name a further cluster's runtime <cluster>/<name>; a cluster that cannot be listed skips the count", async () => {
  const { log, records } = captureLogger('info');
  const reporter = new StallReporter(log);
  await countStalls(
    [
      { kube: listing([blocked('cluster')]) },
      { cluster: 'gpu-b', kube: listing([blocked('cluster'), healthy('other')]) },
    ],
    reporter,
    log,
  );
  const line = records().find((r) => METRIC.stalledNeedsPerson.name in r);
  assert.equal(line?.[METRIC.stalledNeedsPerson.name], 2);
  assert.equal(line?.['runtimes'], 'StalledNeedsPerson: cluster (InvalidSpec), gpu-b/cluster (InvalidSpec)');
  const sent = records().length;
  await countStalls(
    [{ kube: listing([]) }, { cluster: 'gpu-b', kube: listing(new Error('unreachable')) }],
    reporter,
    log,
  );
  assert.equal(
    records()
      .slice(sent)
      .filter((r) => METRIC.stalledNeedsPerson.name in r).length,
    0,
    'no count that would look like a cleared stall',
  );
  assert.ok(
    records()
      .slice(sent)
      .some(
        (r) =>
          r['message'] === 'stall counts skipped this window: a cluster could not be listed' &&
          r['cluster'] === 'gpu-b',
      ),
  );
});

test('STL-2 a stall that retries by itself counts as needing a person once it has lasted 30 minutes, so the default alarm pages every stall class', () => {
  const now = new Date('2026-12-07T12:00:00Z');
  const down = (since: string): RuntimeObject => {
    const r = runtime('cluster', [{ type: 'EngineAvailable', status: 'False', reason: 'EngineUnavailable' }]);
    const c = r.status?.conditions?.[0];
    if (c) c.lastTransitionTime = since;
    return r;
  };
  const counts = (r: RuntimeObject): Record<string, number> => {
    const p = stallCounts([{ name: 'cluster', runtime: r }], now);
    return Object.fromEntries(
      [{ metric: p.metric, value: p.value }, ...(p.more ?? [])].map((m) => [m.metric.name, m.value]),
    );
  };
  assert.equal(counts(down('2026-12-07T11:45:00Z'))[METRIC.stalledNeedsPerson.name], 0, 'not yet: 15 minutes');
  assert.equal(counts(down('2026-12-07T11:45:00Z'))[METRIC.stalledRetrying.name], 1);
  const lasting = counts(down('2026-12-07T11:29:00Z'));
  assert.equal(lasting[METRIC.stalledNeedsPerson.name], 1, 'paged: 31 minutes');
  assert.equal(lasting[METRIC.stalledRetrying.name], 1);
  const line = stallCounts([{ name: 'cluster', runtime: down('2026-12-07T11:29:00Z') }], now).metadata?.['runtimes'];
  assert.match(line ?? '', /StalledNeedsPerson: cluster \(EngineUnavailable since 2026-12-07T11:29:00Z\)/);
  const failing = runtime('cluster', [{ type: 'Released', status: 'False', reason: 'StepFailing' }]);
  assert.equal(counts(failing)[METRIC.stalledNeedsPerson.name], 1, 'STL-1 pages at once');
});

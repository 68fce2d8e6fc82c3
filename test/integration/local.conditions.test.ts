// Local mode end to end: a ClusterRuntime created with kubectl gets its conditions, and the
// runbook's own commands show them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import {
  condition,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  runtimeManifest,
  waitFor,
} from '../../harness/runtime.ts';
import { runbookOk } from '../helpers/runbook.ts';

let cp: ReturnType<typeof startCapturedControlPlane>;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  cp = startCapturedControlPlane();
});
after(async () => {
  cp.stop();
  await cp.running;
  await deleteRuntime();
});

test('COND-1 a runtime created with kubectl gets Ready, Reconciling, Stalled and Resolved in local mode', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'aicr-')), 'runtime.json');
  writeFileSync(
    file,
    JSON.stringify(
      runtimeManifest({
        aicrVersion: 'v0.11.1',
        criteria: { service: 'eks', accelerator: 'h100', intent: 'training' },
      }),
    ),
  );
  await kubectl('apply', '-f', file);
  const rt = await waitFor('conditions', async () => {
    const r = await getRuntime();
    // The summary is written after the step's own condition; wait for both.
    return condition(r, 'Resolved') && condition(r, 'Ready') ? r : undefined;
  });
  const generation = rt.metadata.generation;
  assert.equal(rt.status?.observedGeneration, generation);
  for (const type of ['Ready', 'Reconciling', 'Stalled', 'Resolved']) {
    const c = condition(rt, type);
    assert.ok(c, `${type} is present`);
    assert.equal(c.observedGeneration, generation, `${type} carries observedGeneration`);
    assert.ok(c.reason.length > 0 && c.message.length > 0);
  }
  assert.equal(condition(rt, 'Reconciling')?.status, 'True');
  assert.equal(condition(rt, 'Ready')?.status, 'False');
  assert.equal(condition(rt, 'Stalled')?.status, 'False');
  assert.equal(condition(rt, 'Resolved')?.reason, 'Resolving');
  // kstatus: kubectl wait works on the conditions.
  await kubectl('wait', '--for=condition=Reconciling', '--timeout=10s', 'clusterruntime/cluster');
});

test('COND-5 the runbook conditions jsonpath command, run as written, prints every condition', async () => {
  // Each step writes its own conditions on its first look, in no fixed order: wait for all of them.
  await waitFor('every step to have reported', async () => {
    const r = await getRuntime();
    return ['EngineAvailable', 'InventoryConsistent', 'Released', 'Resolved', 'Ready'].every((t) => condition(r, t))
      ? r
      : undefined;
  });
  // As the runbook prints it, continuation line and shell quoting included.
  const out = await runbookOk(`kubectl get clusterruntime cluster \\
  -o jsonpath='{range .status.conditions[*]}{.type}{"\\t"}{.status}{"\\t"}{.reason}{"\\t"}{.message}{"\\n"}{end}'`);
  const rows = out
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  const types = rows.map((r) => r[0]).sort();
  // Released and EngineAvailable come from the rollout step, which waits for a target plan meanwhile;
  // InventoryConsistent from the drift check, which has no active plan to compare yet.
  assert.deepEqual(types, [
    'EngineAvailable',
    'InventoryConsistent',
    'Ready',
    'Reconciling',
    'Released',
    'Resolved',
    'Stalled',
  ]);
  assert.deepEqual(rows.find((r) => r[0] === 'InventoryConsistent')?.slice(1, 3), ['True', 'InventoryConsistent']);
  assert.deepEqual(rows.find((r) => r[0] === 'Released')?.slice(1, 3), ['False', 'AwaitingPlan']);
  for (const r of rows) assert.equal(r.length, 4, `row ${r.join('|')} has type, status, reason, message`);
  assert.deepEqual(rows.find((r) => r[0] === 'Resolved')?.slice(1, 3), ['False', 'Resolving']);
});

test('COND-5 kubectl get and describe show the runtime state', async () => {
  const table = await kubectl('get', 'clusterruntime', 'cluster');
  const [header, row] = table.trim().split('\n');
  assert.match(header ?? '', /^NAME\s+READY\s+STALLED\s+REASON\s+ACTIVE\s+TARGET\s+AGE/);
  assert.match(row ?? '', /^cluster\s+False\s+False\s+Resolving\s+/);
  const described = await kubectl('describe', 'clusterruntime', 'cluster');
  assert.match(described, /Type:\s+Resolved/);
});

test('COND-1 a spec change is picked up and observedGeneration follows it', async () => {
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  const rt = await waitFor('generation 2 observed', async () => {
    const r = await getRuntime();
    return r?.status?.observedGeneration === 2 ? r : undefined;
  });
  assert.equal(condition(rt, 'Reconciling')?.observedGeneration, 2);
  assert.ok(cp.forwarder.stats.enqueued >= 2);
});

test('COND-1 a change to actionTimeout alone wakes resolve only: the rollout and drift conditions keep their generation and digest', async () => {
  // The rollout step answers the previous change (spec.paused) too; its look may end after
  // resolve's, which already moved status.observedGeneration.
  const before = await waitFor('the rollout step answered the previous change', async () => {
    const r = await getRuntime();
    return condition(r, 'Released')?.observedGeneration === r?.metadata.generation ? r : undefined;
  });
  const released = condition(before, 'Released');
  const observed = (before?.status as { observedSpec?: Record<string, string> } | undefined)?.observedSpec ?? {};
  assert.deepEqual(Object.keys(observed).sort(), ['drift-check', 'rollout'], 'each writes its own key of the map');
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"actionTimeout":"31m"}}');
  const generation = (before?.metadata.generation ?? 0) + 1;
  const rt = await waitFor('the new generation observed', async () => {
    const r = await getRuntime();
    return r?.status?.observedGeneration === generation && condition(r, 'Resolved')?.observedGeneration === generation
      ? r
      : undefined;
  });
  assert.equal(
    condition(rt, 'Released')?.observedGeneration,
    released?.observedGeneration,
    'the rollout step did not look',
  );
  assert.deepEqual((rt.status as { observedSpec?: Record<string, string> }).observedSpec, observed);
});

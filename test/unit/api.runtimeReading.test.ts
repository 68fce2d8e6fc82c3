// The one reader of a ClusterRuntime's spec and status (shared/api/runtimeReading.ts): what an
// unreadable part means for each kind of part, since every step relies on the same answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  UNREADABLE,
  readMaintenance,
  readSpec,
  readStatus,
  readSuspendEngine,
  readWorkloads,
} from '../../shared/api/runtimeReading.ts';

const at = '2026-12-03T10:00:00Z';
const released = {
  type: 'Released',
  status: 'True',
  reason: 'Released',
  message: 'rolled out',
  lastTransitionTime: at,
};
const window = { schedule: '0 2 * * *', duration: '2h' };

test('the spec reads whole with the defaults filled in, or not at all', () => {
  const read = readSpec({ aicrVersion: 'v1.1.0' });
  assert.ok(read.readable);
  assert.equal(read.spec.deletionPolicy, 'Orphan');
  assert.equal(read.spec.selection.mode, 'Automatic');
  assert.deepEqual(
    readSpec({ aicrVersion: 'v1.1.0', actionTimeout: 'soon' }),
    { readable: false },
    'one bad field: no spec',
  );
  assert.deepEqual(readSpec(undefined), { readable: false });
  assert.deepEqual(readSpec('cluster'), { readable: false });
});

test('the maintenance windows and the workload guard read on their own: a mistake elsewhere leaves them, their own mistake reads unreadable, absent reads not set', () => {
  const elsewhere = {
    aicrVersion: 'not a version',
    maintenance: { windows: [window] },
    workloads: { selector: 'team=ml' },
  };
  assert.equal(readSpec(elsewhere).readable, false);
  const maintenance = readMaintenance(elsewhere);
  assert.ok(maintenance !== UNREADABLE && maintenance);
  assert.equal(maintenance.windows?.[0]?.timeZone, 'UTC', 'with the API defaults');
  const workloads = readWorkloads(elsewhere);
  assert.ok(workloads !== UNREADABLE && workloads);
  assert.equal(workloads.maxWait, '24h');

  assert.equal(
    readMaintenance({ maintenance: { windows: [{ schedule: 'every night', duration: '2h' }] } }),
    UNREADABLE,
  );
  assert.equal(readWorkloads({ workloads: { selector: 'team in (ml)' } }), UNREADABLE);
  for (const spec of [{}, undefined, null, 'cluster']) {
    assert.equal(readMaintenance(spec), undefined, JSON.stringify(spec));
    assert.equal(readWorkloads(spec), undefined, JSON.stringify(spec));
  }
});

test('the emergency stop reads from the raw spec: only a literal true, whatever else is wrong', () => {
  assert.equal(readSuspendEngine({ aicrVersion: 'not a version', suspendEngine: true }), true);
  for (const value of [false, 'true', 1, undefined])
    assert.equal(readSuspendEngine({ suspendEngine: value }), false, String(value));
  assert.equal(readSuspendEngine(undefined), false);
});

test('the status reads part by part: an unreadable part is absent and takes nothing else with it; a bad condition is dropped alone', () => {
  const status = readStatus({
    observedGeneration: -1,
    conditions: [released, { type: 'Odd', status: 'False' }],
    activePlan: 'aicr-plan-aaaaaaaa',
    targetPlan: 'p'.repeat(300),
    discovery: { snapshot: { waiting: 'w'.repeat(3000) } },
    notifications: { sent: 2, rollout: '', released: 'Released/aicr-plan-aaaaaaaa', stalled: '' },
  });
  assert.deepEqual(status.conditions, [released]);
  assert.equal(status.activePlan, 'aicr-plan-aaaaaaaa');
  assert.deepEqual(status.notifications, {
    sent: 2,
    rollout: '',
    released: 'Released/aicr-plan-aaaaaaaa',
    stalled: '',
  });
  assert.equal(status.observedGeneration, undefined, 'out of bounds');
  assert.equal(status.targetPlan, undefined, 'over 253 characters');
  assert.equal(status.discovery, undefined, 'a wait over 2,048 characters');
  assert.equal(status.candidatePlan, undefined, 'not set');
  for (const raw of [undefined, null, 'status', { conditions: 'Ready' }])
    assert.deepEqual(readStatus(raw).conditions, [], JSON.stringify(raw));
});

// COND-1: the resolve step's decision, as a table: what it observed -> what it writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide } from '../../shared/steps/resolve/decide.ts';
import type { RuntimeObject } from '../../shared/kube/types.ts';

const now = new Date('2026-11-30T10:00:00Z');
const later = new Date('2026-11-30T11:00:00Z');

function runtime(spec: unknown, extra: Partial<RuntimeObject> = {}, generation = 1): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', resourceVersion: '10', generation },
    spec,
    ...extra,
  };
}

const valid = { aicrVersion: 'v1.1.0', criteria: { service: 'eks' } };

test('COND-1 a new valid runtime gets Ready, Reconciling, Stalled and Resolved with observedGeneration', () => {
  const [action, ...rest] = decide({ runtime: runtime(valid, {}, 3) }, now);
  assert.equal(rest.length, 0);
  assert.ok(action);
  const status = action.patch.status as { observedGeneration: number; conditions: { type: string; status: string; reason: string; observedGeneration: number; lastTransitionTime: string }[] };
  assert.equal(status.observedGeneration, 3);
  const byType = Object.fromEntries(status.conditions.map((c) => [c.type, c]));
  assert.equal(byType['Reconciling']?.status, 'True');
  assert.equal(byType['Ready']?.status, 'False');
  assert.equal(byType['Stalled']?.status, 'False');
  assert.equal(byType['Resolved']?.status, 'False');
  assert.equal(byType['Resolved']?.reason, 'Resolving');
  for (const c of status.conditions) {
    assert.equal(c.observedGeneration, 3);
    assert.equal(c.lastTransitionTime, '2026-11-30T10:00:00Z');
  }
  assert.equal(action.patch.resourceVersion, '10', 'the write is conditional on what was read');
  assert.equal(action.patch.fieldManager, 'aicr-resolve');
});

test('COND-1 a runtime already reporting its generation needs no write (no-op reconcile)', () => {
  const [first] = decide({ runtime: runtime(valid) }, now);
  assert.ok(first);
  const settled = runtime(valid, { status: first.patch.status as NonNullable<RuntimeObject['status']> });
  assert.deepEqual(decide({ runtime: settled }, later), []);
});

test('COND-1 a new generation keeps lastTransitionTime of conditions whose status did not change', () => {
  const [first] = decide({ runtime: runtime(valid) }, now);
  assert.ok(first);
  const next = runtime(valid, { status: first.patch.status as NonNullable<RuntimeObject['status']> }, 2);
  const [action] = decide({ runtime: next }, later);
  assert.ok(action);
  const conds = (action.patch.status as { conditions: { lastTransitionTime: string; observedGeneration: number }[] }).conditions;
  for (const c of conds) {
    assert.equal(c.lastTransitionTime, '2026-11-30T10:00:00Z');
    assert.equal(c.observedGeneration, 2);
  }
});

test('COND-2 stored data the schema no longer accepts stalls with InvalidSpec and the field path', () => {
  const bad = { aicrVersion: 'v1.1.0', criteria: { service: 'mainframe' }, selection: { mode: 'Pinned' } };
  const [action] = decide({ runtime: runtime(bad) }, now);
  assert.ok(action);
  const conds = (action.patch.status as { conditions: { type: string; status: string; reason: string; message: string }[] }).conditions;
  const stalled = conds.find((c) => c.type === 'Stalled');
  assert.equal(stalled?.status, 'True');
  assert.equal(stalled?.reason, 'InvalidSpec');
  assert.match(stalled?.message ?? '', /spec\.criteria\.service/);
  assert.match(stalled?.message ?? '', /spec\.selection\.plan/);
  assert.equal(conds.find((c) => c.type === 'Resolved')?.reason, 'InvalidSpec', 'Resolved carries the same reason');
  assert.equal(conds.find((c) => c.type === 'Ready')?.status, 'False');
  assert.equal(conds.find((c) => c.type === 'Reconciling')?.status, 'False');
});

test('a runtime being deleted or gone gets no status write', () => {
  assert.deepEqual(decide({}, now), []);
  const deleting = runtime(valid);
  const gone = { ...deleting, metadata: { ...deleting.metadata, deletionTimestamp: '2026-11-30T09:00:00Z' } };
  assert.deepEqual(decide({ runtime: gone }, now), []);
});

// COND-1: a condition whose step depends on part of the spec stays current across a change to the
// rest of it (its recorded digest still matches), and goes stale once its own part moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../shared/api/condition.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import { specPartDigest } from '../../shared/status/specPart.ts';
import { summarize } from '../../shared/status/summarize.ts';
import { currentDespiteGeneration } from '../../shared/status/writeStatus.ts';
import { STEP_TABLE, ownedConditions, stepRow } from '../../shared/steps/table.ts';

const T = '2026-12-06T10:00:00Z';
const cond = (type: string, reason: string, observedGeneration: number): Condition => ({
  type,
  status: 'True',
  reason,
  message: `${type} ${reason}`,
  lastTransitionTime: T,
  observedGeneration,
});

const SPEC = { aicrVersion: 'v0.11.1', actionTimeout: '30m', paused: false };
const rollout = stepRow('rollout');
const drift = stepRow('drift-check');

/** Generation 2, whose change only resolve looked at; rollout and the drift check last wrote at generation 1 over `seen`. */
function runtimeAfterChange(spec: Record<string, unknown>, seen: Record<string, unknown>): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', resourceVersion: '7', generation: 2 },
    spec,
    status: {
      observedGeneration: 2,
      conditions: [
        cond('Resolved', 'Resolved', 2),
        cond('EngineAvailable', 'EngineAvailable', 1),
        cond('Released', 'Released', 1),
        cond('InventoryConsistent', 'InventoryConsistent', 1),
      ],
      observedSpec: {
        rollout: specPartDigest(seen, rollout?.specFields),
        'drift-check': specPartDigest(seen, drift?.specFields),
      },
    },
  };
}

function summaryOf(rt: RuntimeObject) {
  return summarize({
    conditions: rt.status?.conditions ?? [],
    generation: rt.metadata.generation ?? 0,
    expected: ownedConditions(),
    current: currentDespiteGeneration(rt, STEP_TABLE),
  });
}

test('COND-1 a change to a field only resolve reads leaves the rollout and drift conditions current: the runtime is Ready', () => {
  const rt = runtimeAfterChange({ ...SPEC, actionTimeout: '45m' }, SPEC);
  assert.deepEqual(currentDespiteGeneration(rt, STEP_TABLE).sort(), [
    'EngineAvailable',
    'InventoryConsistent',
    'Released',
  ]);
  const ready = summaryOf(rt).find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'True');
});

test('COND-1 a change to a field the rollout step reads makes its conditions stale until it writes them again', () => {
  const rt = runtimeAfterChange({ ...SPEC, paused: true }, SPEC);
  assert.deepEqual(currentDespiteGeneration(rt, STEP_TABLE), ['InventoryConsistent'], 'the drift check reads no pause');
  const ready = summaryOf(rt).find((c) => c.type === 'Ready');
  assert.equal(ready?.status, 'False');
  assert.equal(ready?.reason, 'NewGeneration');
  assert.match(ready?.message ?? '', /EngineAvailable describes generation 1/);
});

test('COND-1 without a recorded digest an older generation is stale, as before', () => {
  const rt = runtimeAfterChange({ ...SPEC, actionTimeout: '45m' }, SPEC);
  const status = { ...rt.status, observedSpec: undefined };
  assert.deepEqual(currentDespiteGeneration({ ...rt, status }, STEP_TABLE), []);
});

test('a spec part digest ignores the order the server kept keys in and fields outside the part', () => {
  const fields = rollout?.specFields;
  assert.equal(
    specPartDigest({ paused: true, aicrVersion: 'v1', maintenance: { b: 1, a: 2 } }, fields),
    specPartDigest({ maintenance: { a: 2, b: 1 }, aicrVersion: 'v1', paused: true, actionTimeout: '9m' }, fields),
  );
  assert.notEqual(specPartDigest({ paused: true }, fields), specPartDigest({ paused: false }, fields));
  assert.notEqual(
    specPartDigest({ a: 1 }, undefined),
    specPartDigest({ a: 2 }, undefined),
    'undefined: the whole spec',
  );
});

// The resolve step's decision, as a table: what it read -> the Resolved condition it reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decide } from '../../shared/steps/resolve/decide.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';

function runtime(spec: unknown, generation = 1, deletionTimestamp?: string): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: {
      name: 'cluster',
      uid: 'u-1',
      resourceVersion: '10',
      generation,
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
    spec,
  };
}

const valid = { aicrVersion: 'v1.1.0', criteria: { service: 'eks' } };

test('COND-1 a valid runtime reports Resolved=False with Resolving and its generation, and only Resolved', () => {
  const out = decide(runtime(valid, 3));
  assert.deepEqual(
    out?.map((c) => [c.type, c.status, c.reason]),
    [['Resolved', 'False', 'Resolving']],
  );
  assert.match(out?.[0]?.message ?? '', /generation 3/);
});

test('COND-2 stored data the schema no longer accepts reports InvalidSpec with every field path', () => {
  const bad = { aicrVersion: 'v1.1.0', criteria: { service: 'mainframe' }, selection: { mode: 'Pinned' } };
  const [resolved, ...rest] = decide(runtime(bad)) ?? [];
  assert.equal(rest.length, 0);
  assert.equal(resolved?.reason, 'InvalidSpec');
  assert.equal(resolved?.status, 'False');
  assert.match(resolved?.message ?? '', /spec\.criteria\.service/);
  assert.match(resolved?.message ?? '', /spec\.selection\.plan/);
});

test('a runtime being deleted gets no status write', () => {
  assert.equal(decide(runtime(valid, 1, '2026-11-30T09:00:00Z')), undefined);
});

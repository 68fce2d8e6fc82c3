// The zod schema names the same field paths the API server names (see the integration twin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterRuntimeSchema } from '../../shared/api/clusterRuntime.ts';
import { INVALID_SPECS } from '../fixtures/invalidSpecs.ts';
import { VALID_SPECS } from '../fixtures/validSpecs.ts';

test('each invalid spec is refused by zod naming the field, with the same friendly message as the API server', () => {
  for (const c of INVALID_SPECS) {
    const parsed = ClusterRuntimeSchema.safeParse({ metadata: { name: c.name ?? 'cluster' }, spec: c.spec });
    assert.equal(parsed.success, false, c.title);
    const issues = parsed.error?.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) ?? [];
    const paths = issues.map((i) => i.path);
    assert.ok(paths.includes(c.field), `${c.title}: expected ${c.field} in ${paths.join(', ')}`);
    if (c.message !== undefined) assert.deepEqual(issues.find((i) => i.path === c.field)?.message, c.message, c.title);
  }
});

test('a minimal spec is accepted and gets the documented defaults', () => {
  const parsed = ClusterRuntimeSchema.parse({ metadata: { name: 'cluster' }, spec: { aicrVersion: 'v1.1.0' } });
  assert.deepEqual(parsed.spec.selection, { mode: 'Automatic' });
  assert.equal(parsed.spec.deletionPolicy, 'Orphan');
  assert.equal(parsed.spec.validation.deployment, 'Required');
  assert.equal(parsed.spec.paused, false);
  assert.equal(parsed.spec.suspendEngine, false);
  assert.equal(parsed.spec.actionTimeout, '30m');
});

test('specs at the edge of every bound are accepted by zod', () => {
  for (const c of VALID_SPECS) {
    const parsed = ClusterRuntimeSchema.safeParse({ metadata: { name: 'cluster' }, spec: c.spec });
    assert.ok(parsed.success, `${c.title}: ${JSON.stringify(parsed.error?.issues)}`);
  }
});

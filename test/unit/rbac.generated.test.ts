// The chart's RBAC is generated from the step table: one identity per function, each with only its
// row's rules, and the committed file is never stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RBAC_TEMPLATE } from '../../infra/chartPaths.ts';
import { identities, renderRbac } from '../../shared/rbac/render.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';

test('infra/chart/templates/rbac.yaml is what the step table renders (run npm run gen:rbac)', () => {
  assert.equal(readFileSync(RBAC_TEMPLATE, 'utf8'), renderRbac());
});

test('each step and the forwarder have their own group, and every rule says why', () => {
  const ids = identities();
  const grouped = ids.filter((i) => i.group !== undefined);
  assert.deepEqual(grouped.map((i) => i.group).sort(), ['aicr:forwarder', ...STEP_TABLE.map((r) => `aicr:step:${r.name}`)].sort());
  assert.equal(new Set(grouped.map((i) => i.group)).size, grouped.length);
  // The identities without a group are the ServiceAccounts AICR's own Jobs run as.
  assert.deepEqual(ids.filter((i) => i.group === undefined).map((i) => i.serviceAccount?.name), ['aicr-runner', 'aicr-snapshot-agent']);
  for (const id of ids) {
    assert.ok(id.rules.length > 0, `${id.name} has rules`);
    for (const r of id.rules) assert.ok(r.why.length > 0 && !r.verbs.includes('*') && !r.resources.includes('*'), `${id.name}: explicit rules only`);
  }
});

// The chart's access control is generated: the RBAC from the step table (one identity per
// function, each with only its row's rules) and the admission policies from the constants;
// the committed files are never stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { IDENTITY_GROUP, NAMESPACES, PLAN_WRITER_GROUPS } from '../../shared/api/constants.ts';
import { basename } from 'node:path';
import { ACCESS_CONTROL_FILES } from '../../infra/accessControlFiles.ts';
import { identities } from '../../shared/rbac/render.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';

for (const { path, render } of ACCESS_CONTROL_FILES) {
  test(`infra/chart/templates/${basename(path)} is what the step table and constants render (run npm run gen:rbac)`, () => {
    assert.equal(readFileSync(path, 'utf8'), render());
  });
}

test('each step and the forwarder have their own group, and every rule says why', () => {
  const ids = identities();
  const grouped = ids.filter((i) => i.group !== undefined);
  assert.deepEqual(
    grouped.map((i) => i.group).sort(),
    ['aicr:forwarder', ...STEP_TABLE.map((r) => `aicr:step:${r.name}`)].sort(),
  );
  assert.equal(new Set(grouped.map((i) => i.group)).size, grouped.length);
  // The identities without a group are the ServiceAccounts AICR's own Jobs run as.
  assert.deepEqual(
    ids.filter((i) => i.group === undefined).map((i) => i.serviceAccount?.name),
    ['aicr-runner', 'aicr-snapshot-agent', 'aicr-validate'],
  );
  for (const id of ids) {
    assert.ok(id.rules.length > 0, `${id.name} has rules`);
    for (const r of id.rules)
      assert.ok(
        r.why.length > 0 && !r.verbs.includes('*') && !r.resources.includes('*'),
        `${id.name}: explicit rules only`,
      );
  }
});

test('PLAN-1 the plan writers are the resolve step alone, and its RBAC is what lets it write plans', () => {
  assert.deepEqual(PLAN_WRITER_GROUPS, [IDENTITY_GROUP.step('resolve')]);
  for (const group of PLAN_WRITER_GROUPS) {
    const id = identities().find((i) => i.group === group);
    assert.ok(id, `${group} is one of the chart's identities`);
    // Admission only narrows what RBAC grants: a writer group without these rights could write no plan at all.
    const writes = id.rules.filter(
      (r) => r.namespace === NAMESPACES.system && r.apiGroups.includes('') && r.resources.includes('configmaps'),
    );
    for (const verb of ['create', 'patch', 'delete'])
      assert.ok(
        writes.some((r) => r.verbs.includes(verb) && !r.resourceNames),
        `${group} may ${verb} any ConfigMap in ${NAMESPACES.system}`,
      );
  }
});

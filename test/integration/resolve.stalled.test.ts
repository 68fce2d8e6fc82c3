// A runtime holding data the schema no longer accepts (stored before a stricter CRD) stalls
// with InvalidSpec and the field path, and nothing but its status is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterRuntimeCrd } from '../../shared/api/crd.ts';
import { resolveItem, runResolveOnce } from '../helpers/steps.ts';
import { auditMark } from '../helpers/audit.ts';
import { controlPlaneKube } from '../helpers/controlPlane.ts';
import { captureLogger } from '../helpers/logs.ts';
import { controlPlaneRequests } from '../helpers/statusWrites.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../helpers/runtime.ts';

/** Stores a spec the current schema refuses, the way an older, looser CRD once accepted it. */
async function storeWithLooseSchema(spec: Record<string, unknown>): Promise<void> {
  const loose = structuredClone(clusterRuntimeCrd()) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
  const v = loose.spec.versions[0];
  assert.ok(v);
  const root = v.schema.openAPIV3Schema as { properties: Record<string, unknown> };
  root.properties['spec'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  // Through kubectl: client-node's typed models would drop the x-kubernetes-* keys.
  const file = join(mkdtempSync(join(tmpdir(), 'aicr-')), 'loose-crd.json');
  writeFileSync(file, JSON.stringify(loose));
  await kubectl('apply', '--server-side', '--force-conflicts', '-f', file);
  await waitFor('loose schema served', async () => {
    try {
      return await createRuntime(spec);
    } catch {
      return undefined;
    }
  });
  await ensureCrds();
  assert.equal(((await getRuntime())?.spec as { aicrVersion?: string }).aicrVersion, spec['aicrVersion'], 'stored as given');
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(async () => {
  await deleteRuntime();
  await ensureCrds();
});

test('COND-2 stored data the schema refuses stalls the runtime with InvalidSpec naming the field', async () => {
  await storeWithLooseSchema({ aicrVersion: 'v1.1.0', criteria: { service: 'mainframe' } });
  const rt = await getRuntime();
  assert.ok(rt);
  const { log } = captureLogger();
  const mark = auditMark();
  const result = await runResolveOnce(resolveItem(rt.metadata.uid), { kube: controlPlaneKube(), log });
  assert.equal(result.writes, 2, 'the step writes Resolved, then the summary writes Stalled');
  const after = await getRuntime();
  const stalled = condition(after, 'Stalled');
  assert.equal(stalled?.status, 'True');
  assert.equal(stalled?.reason, 'InvalidSpec');
  assert.match(stalled?.message ?? '', /^spec\.criteria\.service: /);
  assert.equal(condition(after, 'Ready')?.status, 'False');
  assert.equal(condition(after, 'Resolved')?.reason, 'InvalidSpec');
  const count = await controlPlaneRequests(mark);
  assert.equal(count.ok, 2, 'the step write and the summary write');
  assert.deepEqual(count.otherWrites, [], 'nothing else is written');
});

// Stores a runtime the current schema refuses, the way an older, looser CRD once accepted it,
// then puts the real CRD back.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterRuntimeCrd } from '../../shared/api/crd.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import { installChart } from '../../harness/chart.ts';
import { createRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

export async function storeWithLooseSchema(spec: Record<string, unknown>): Promise<RuntimeObject> {
  const loose = structuredClone(clusterRuntimeCrd()) as {
    spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
  };
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
  // The release itself did not change, so only a real install, not ensureCrds(), puts it back.
  await installChart();
  const stored = await getRuntime();
  assert.ok(stored);
  return stored;
}

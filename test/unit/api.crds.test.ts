// The CRDs in infra/crds are generated from the zod schemas; a stale file fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderCrds } from '../../shared/api/renderCrds.ts';

test('infra/crds matches the zod schemas (run npm run gen:crds after changing shared/api)', () => {
  for (const [file, text] of Object.entries(renderCrds())) {
    const onDisk = readFileSync(new URL(`../../infra/crds/${file}`, import.meta.url), 'utf8');
    assert.equal(onDisk, text, `infra/crds/${file} is stale: run npm run gen:crds`);
  }
});

test('COND-1 the ClusterRuntime CRD keys conditions by type and prints Ready, Stalled, reason and plans', () => {
  const text = renderCrds()['clusterruntimes.yaml'] ?? '';
  assert.match(text, /x-kubernetes-list-type: map/);
  assert.match(text, /x-kubernetes-list-map-keys:\n\s+- type/);
  for (const col of ['Ready', 'Stalled', 'Reason', 'Active', 'Target', 'Age']) assert.match(text, new RegExp(`name: ${col}\\n`));
  assert.match(text, /scope: Cluster/);
  assert.match(text, /status: \{\}/);
});

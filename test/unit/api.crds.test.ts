// The chart's CRDs are generated from the zod schemas; a stale file fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CRD_TEMPLATE_DIR } from '../../infra/chartPaths.ts';
import { renderCrds } from '../../shared/api/renderCrds.ts';

test('the CRDs in the chart match the zod schemas (run npm run gen:crds after changing shared/api)', () => {
  const rendered = renderCrds();
  assert.deepEqual(
    readdirSync(CRD_TEMPLATE_DIR).sort(),
    Object.keys(rendered).sort(),
    'one file per CRD, and nothing else',
  );
  for (const [file, text] of Object.entries(rendered)) {
    assert.equal(
      readFileSync(join(CRD_TEMPLATE_DIR, file), 'utf8'),
      text,
      `infra/chart/templates/crds/${file} is stale: run npm run gen:crds`,
    );
  }
});

test('COND-1 the ClusterRuntime CRD keys conditions by type and prints Ready, Stalled, reason and plans', () => {
  const text = renderCrds()['clusterruntimes.yaml'] ?? '';
  assert.match(text, /x-kubernetes-list-type: map/);
  assert.match(text, /x-kubernetes-list-map-keys:\n\s+- type/);
  for (const col of ['Ready', 'Stalled', 'Reason', 'Active', 'Target', 'Age'])
    assert.match(text, new RegExp(`name: ${col}\\n`));
  assert.match(text, /scope: Cluster/);
  assert.match(text, /status: \{\}/);
});

// The fixture chart repository's pure parts: the AICR --data overlay changes only repository
// URLs, every chart and version the recipe data names gets a chart, and the archives are
// charts copyChart accepts (Chart.yaml of that name and version under <chart>/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { readTar } from '../../shared/oci/tar.ts';
import { chartsNamed, indexEntry, indexYaml, packageFixture, pointAt } from '../../harness/fixtureCharts.ts';

const REGISTRY = `kind: ComponentRegistry
components:
  - name: gpu-operator
    helm:
      defaultRepository: https://helm.ngc.nvidia.com/nvidia
      defaultChart: nvidia/gpu-operator
  - name: cert-manager
    helm:
      defaultRepository: https://charts.jetstack.io
      defaultChart: jetstack/cert-manager
      defaultVersion: v1.17.2
  - name: skyhook-customizations
    helm:
      defaultRepository: ""
`;
const OVERLAY = `spec:
  componentRefs:
    - name: gpu-operator
      source: oci://ghcr.io/nvidia   
      version: v25.10.1
    - name: skyhook-customizations
      version: "0.9"
`;

test('the overlay points every non-empty repository URL at the fixture repository and keeps every other line', () => {
  const url = 'http://127.0.0.1:1234';
  assert.equal(
    pointAt(REGISTRY, url),
    REGISTRY.replace('https://helm.ngc.nvidia.com/nvidia', url).replace('https://charts.jetstack.io', url),
  );
  assert.equal(pointAt(OVERLAY, url), OVERLAY.replace('oci://ghcr.io/nvidia   ', url));
});

test('a chart for each version the defaults and overlays name, none for a component without a chart', () => {
  assert.deepEqual(chartsNamed(REGISTRY, [OVERLAY]), [
    { chart: 'gpu-operator', version: 'v25.10.1' },
    { chart: 'cert-manager', version: 'v1.17.2' },
  ]);
});

test('a fixture archive holds <chart>/Chart.yaml with its name and version as strings, and the index gives its digest', () => {
  const c = { chart: 'dynamo-crds', version: '0.9' };
  const archive = packageFixture(c);
  const files = readTar(gunzipSync(archive));
  assert.deepEqual(parse(new TextDecoder().decode(files.get('dynamo-crds/Chart.yaml'))), {
    apiVersion: 'v2',
    name: 'dynamo-crds',
    version: '0.9',
    description: 'test fixture standing in for the upstream dynamo-crds chart',
  });
  assert.ok(files.has('dynamo-crds/templates/fixture.yaml'));
  assert.deepEqual(packageFixture(c), archive, 'the same bytes each time');
  const index = parse(indexYaml([indexEntry(c, archive)])) as {
    entries: Record<string, { version: string; urls: string[]; digest: string }[]>;
  };
  assert.equal(index.entries['dynamo-crds']?.[0]?.urls[0], 'dynamo-crds-0.9.tgz');
  assert.match(index.entries['dynamo-crds']?.[0]?.digest ?? '', /^[0-9a-f]{64}$/);
});

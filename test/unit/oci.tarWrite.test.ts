// The tar writer against the project's own tar reader: what goes in comes out, long paths use
// the ustar prefix, the same files always give the same bytes, and a manifests chart is a
// gzip of such a tar whose digest depends on its files only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { readTar } from '../../shared/oci/tar.ts';
import { writeTar } from '../../shared/oci/tarWrite.ts';
import { manifestBytes, sha256 } from '../../shared/oci/push.ts';
import { HELM_CHART_LAYER, HELM_CONFIG } from '../../shared/api/helmMediaTypes.ts';
import { packageManifestsChart } from '../../shared/plans/manifestsChartPackage.ts';

const enc = new TextEncoder();

test('a written tar reads back file for file, long paths through the ustar prefix', () => {
  const long = `${'d'.repeat(80)}/${'e'.repeat(60)}/${'f'.repeat(90)}.yaml`;
  const files = new Map<string, Uint8Array>([
    ['b.yaml', enc.encode('b')],
    ['a/x.yaml', enc.encode('x'.repeat(1500))],
    [long, enc.encode('long')],
    ['empty', new Uint8Array()],
  ]);
  assert.deepEqual(readTar(writeTar(files)), files);
});

test('the same files in another order give the same bytes; a path too long even with a prefix is refused', () => {
  const a = new Map([
    ['one', enc.encode('1')],
    ['two', enc.encode('2')],
  ]);
  const b = new Map([
    ['two', enc.encode('2')],
    ['one', enc.encode('1')],
  ]);
  assert.deepEqual(writeTar(a), writeTar(b));
  assert.throws(() => writeTar(new Map([['x'.repeat(300), enc.encode('')]])), /too long for a ustar header/);
});

test('a manifests chart: Helm media types, Chart.yaml and the files under files/, a digest that follows the files', () => {
  const files = new Map([['dcgm.yaml', enc.encode('kind: ConfigMap\n')]]);
  const chart = packageManifestsChart('gpu-operator', files);
  assert.equal(chart.name, 'gpu-operator-manifests');
  assert.match(chart.version, /^0\.0\.0-m[0-9a-f]{12}$/);
  assert.equal(chart.artifact.config.mediaType, HELM_CONFIG);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(chart.artifact.config.bytes)), {
    apiVersion: 'v2',
    name: chart.name,
    version: chart.version,
    description: 'Raw manifests of the gpu-operator component, as AICR rendered them',
    type: 'application',
  });
  const [layer] = chart.artifact.layers;
  assert.equal(layer?.mediaType, HELM_CHART_LAYER);
  const inside = readTar(gunzipSync(layer?.bytes ?? new Uint8Array()));
  assert.deepEqual([...inside.keys()].sort(), [
    'gpu-operator-manifests/Chart.yaml',
    'gpu-operator-manifests/files/dcgm.yaml',
    'gpu-operator-manifests/templates/manifests.yaml',
  ]);
  const again = sha256(manifestBytes(packageManifestsChart('gpu-operator', new Map(files)).artifact));
  assert.equal(sha256(manifestBytes(chart.artifact)), again);
  assert.notEqual(
    sha256(
      manifestBytes(
        packageManifestsChart('gpu-operator', new Map([['dcgm.yaml', enc.encode('kind: Secret\n')]])).artifact,
      ),
    ),
    again,
  );
});

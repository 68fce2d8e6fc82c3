// The Helm chart a component's raw manifests travel in (name and version: manifestsChart.ts),
// as an OCI artifact in Helm's media types, ready for push.ts. The files go in verbatim under
// files/ and one template prints each of them: a manifest that happens to hold `{{` is then
// still applied as written, never read as a template. Same files, same bytes, same digest.
import { gzipSync } from 'node:zlib';
import { HELM_CHART_LAYER, HELM_CONFIG } from '../api/helmMediaTypes.ts';
import type { Artifact } from '../oci/push.ts';
import { writeTar } from '../oci/tarWrite.ts';
import { manifestsChartName, manifestsChartVersion } from './manifestsChart.ts';

/** Each file under files/ as one YAML document, in path order (Go templates range over sorted keys). */
const TEMPLATE = [
  '{{- range $path, $_ := .Files.Glob "files/**" }}',
  '---',
  '{{ $.Files.Get $path }}',
  '{{- end }}',
  '',
].join('\n');

export interface PackagedChart {
  readonly name: string;
  readonly version: string;
  readonly artifact: Artifact;
}

export function packageManifestsChart(component: string, files: ReadonlyMap<string, Uint8Array>): PackagedChart {
  const name = manifestsChartName(component);
  const version = manifestsChartVersion(files);
  const meta = {
    apiVersion: 'v2',
    name,
    version,
    description: `Raw manifests of the ${component} component, as AICR rendered them`,
    type: 'application',
  };
  const chartYaml =
    Object.entries(meta)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n') + '\n';
  const enc = new TextEncoder();
  const entries = new Map<string, Uint8Array>([
    [`${name}/Chart.yaml`, enc.encode(chartYaml)],
    [`${name}/templates/manifests.yaml`, enc.encode(TEMPLATE)],
  ]);
  for (const [path, bytes] of files) entries.set(`${name}/files/${path}`, bytes);
  const layer = gzipSync(writeTar(entries), { level: 9 });
  return {
    name,
    version,
    artifact: {
      config: { mediaType: HELM_CONFIG, bytes: enc.encode(JSON.stringify(meta)) },
      layers: [{ mediaType: HELM_CHART_LAYER, bytes: layer }],
    },
  };
}

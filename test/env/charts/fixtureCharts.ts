// TEST FIXTURES, not part of the product: small Helm charts standing in for the upstream charts
// AICR's recipes name (upstream chart repositories cannot be reached here), and an AICR `--data`
// overlay that points every component at the loopback repository serving them. Both are made
// from AICR's own recipe data (registry.yaml and overlays/) at up time, so they follow the
// pinned AICR version instead of a list kept by hand.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { writeTar } from '../../../shared/oci/tarWrite.ts';

export interface FixtureChart {
  readonly chart: string;
  readonly version: string;
}

interface RegistryDoc {
  components?: { name?: string; helm?: { defaultChart?: string; defaultVersion?: string } }[];
}
interface OverlayDoc {
  spec?: { componentRefs?: { name?: string; version?: string }[] };
}

/**
 * The same text with each non-empty repository URL (`defaultRepository:` in registry.yaml,
 * `source:` in overlays) replaced by `url`; every other line is kept as AICR ships it, so the
 * recipes keep their components, versions and values.
 */
export function pointAt(text: string, url: string): string {
  return text.replace(/^(\s*(?:-\s+)?(?:defaultRepository|source):[ \t]+)(?!""|'')(\S+)[ \t]*$/gm, (_m, key: string) => `${key}${url}`);
}

/** Each component's versions, as registry defaults and overlays give them. */
function versionsByComponent(registry: NonNullable<RegistryDoc['components']>, overlayTexts: readonly string[]): Map<string, Set<string>> {
  const versions = new Map<string, Set<string>>();
  const add = (name: string | undefined, version: string | undefined): void => {
    if (name === undefined || version === undefined || version === '') return;
    versions.set(name, (versions.get(name) ?? new Set()).add(String(version)));
  };
  for (const c of registry) add(c.name, c.helm?.defaultVersion);
  for (const text of overlayTexts) for (const ref of (parse(text) as OverlayDoc | null)?.spec?.componentRefs ?? []) add(ref.name, ref.version);
  return versions;
}

/** Every chart and version any recipe can name: the registry's charts, at each version its overlays or defaults give. */
export function chartsNamed(registryText: string, overlayTexts: readonly string[]): FixtureChart[] {
  const registry = (parse(registryText) as RegistryDoc | null)?.components ?? [];
  const versions = versionsByComponent(registry, overlayTexts);
  return registry.flatMap((c) => {
    const chart = c.helm?.defaultChart?.split('/').pop();
    if (!chart || c.name === undefined) return [];
    return [...(versions.get(c.name) ?? [])].map((version) => ({ chart, version }));
  });
}

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A minimal valid chart as `helm package` lays it out: Chart.yaml and one template, under <chart>/. */
export function packageFixture(c: FixtureChart): Uint8Array {
  const chartYaml = `apiVersion: v2\nname: ${c.chart}\nversion: ${JSON.stringify(c.version)}\ndescription: test fixture standing in for the upstream ${c.chart} chart\n`;
  const template = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-fixture\ndata:\n  chart: ${c.chart}\n  version: ${JSON.stringify(c.version)}\n`;
  const files = new Map([
    [`${c.chart}/Chart.yaml`, utf8(chartYaml)],
    [`${c.chart}/templates/fixture.yaml`, utf8(template)],
  ]);
  return gzipSync(writeTar(files));
}

export const archiveName = (c: FixtureChart): string => `${c.chart}-${c.version}.tgz`;

export interface IndexEntry extends FixtureChart {
  /** sha256 hex of the archive, as chart repositories publish it. */
  readonly digest: string;
}

export function indexEntry(c: FixtureChart, archive: Uint8Array): IndexEntry {
  return { ...c, digest: createHash('sha256').update(archive).digest('hex') };
}

/** A classic chart repository index (index.yaml) of these entries, with relative archive URLs. */
export function indexYaml(entries: readonly IndexEntry[]): string {
  const byChart: Record<string, object[]> = {};
  for (const e of entries) {
    (byChart[e.chart] ??= []).push({ apiVersion: 'v2', name: e.chart, version: e.version, digest: e.digest, urls: [archiveName(e)], created: '2026-01-01T00:00:00Z' });
  }
  return stringify({ apiVersion: 'v1', entries: byChart, generated: '2026-01-01T00:00:00Z' });
}

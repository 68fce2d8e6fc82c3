// TEST FIXTURES, not part of the product: small Helm charts standing in for the upstream charts
// AICR's recipes name (upstream chart repositories cannot be reached here), and an AICR `--data`
// overlay that points every component at the loopback repository serving them. Both are made
// from AICR's own recipe data (registry.yaml and overlays/) at up time, so they follow the
// pinned AICR version instead of a list kept by hand. The test environment's chart repository
// (test/env/charts/) serves them; the rollout tests and the bench push their own (./rolloutStage.ts).
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { writeTar } from '../shared/oci/tarWrite.ts';

export interface FixtureChart {
  readonly chart: string;
  readonly version: string;
}

interface RegistryDoc {
  components?: { name?: string; helm?: { defaultChart?: string; defaultVersion?: string } }[];
}
interface OverlayDoc {
  spec?: { componentRefs?: { name?: string; version?: string; manifestFiles?: string[]; dependencyRefs?: string[] }[] };
}

/** A kind of custom resource, as a CRD for it needs. */
export interface CustomKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * The same text with each non-empty repository URL (`defaultRepository:` in registry.yaml,
 * `source:` in overlays) replaced by `url`; every other line is kept as AICR ships it, so the
 * recipes keep their components, versions and values.
 */
export function pointAt(text: string, url: string): string {
  return text.replace(
    /^(\s*(?:-\s+)?(?:defaultRepository|source):[ \t]+)(?!""|'')(\S+)[ \t]*$/gm,
    (_m, key: string) => `${key}${url}`,
  );
}

/** Each component's versions, as registry defaults and overlays give them. */
function versionsByComponent(
  registry: NonNullable<RegistryDoc['components']>,
  overlayTexts: readonly string[],
): Map<string, Set<string>> {
  const versions = new Map<string, Set<string>>();
  const add = (name: string | undefined, version: string | undefined): void => {
    if (name === undefined || version === undefined || version === '') return;
    versions.set(name, (versions.get(name) ?? new Set()).add(String(version)));
  };
  for (const c of registry) add(c.name, c.helm?.defaultVersion);
  for (const text of overlayTexts)
    for (const ref of (parse(text) as OverlayDoc | null)?.spec?.componentRefs ?? []) add(ref.name, ref.version);
  return versions;
}

/**
 * Every chart and version any recipe can name: the registry's charts, at each version its overlays
 * or defaults give.
 */
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

/** How a fixture chart renders. */
export interface FixtureContent {
  /** CRDs for custom resources AICR's own manifests create, which the upstream chart would install. */
  readonly crds?: readonly CustomKind[];
  /**
   * Whether the version and the values show in what the chart renders (the workload's Pod
   * template), so an upgrade or a values change restarts the workload. Without it two versions,
   * and any values, render the same manifests: a bump Argo CD has nothing to sync for.
   */
  readonly versionInManifests?: boolean;
}

/** The API group of a fixture chart's own CRD: one per chart, so charts never share a CRD. */
export const fixtureGroup = (chart: string): string => `${chart}.fixtures.testenv.aicr.local`;
/** The process node's image for workloads that only run (test/env/node/images.ts). */
export const FIXTURE_WORKLOAD_IMAGE = 'testenv.aicr.local/pause:1';

/** The chart's own CRD, with a kind of its own (Widget in its own group). */
function crdYaml(chart: string): string {
  return customCrdYaml({ group: fixtureGroup(chart), version: 'v1', kind: 'Widget' });
}

/**
 * How an upstream chart names and labels its operator where AICR's deployment validator looks
 * for it (the validator's operator-health and gpu-operator-version checks are compiled into it,
 * not read from the recipe): the fixture deploys its workload the same way, so the recipe's
 * default deployment checks find the release Argo CD deployed. The version label carries the
 * chart's version, which the recipe's `Deployment.gpu-operator.version` constraint reads.
 */
const UPSTREAM_WORKLOAD: Readonly<
  Record<string, { readonly name: string; readonly podLabels: Readonly<Record<string, string>> }>
> = {
  'gpu-operator': { name: 'gpu-operator', podLabels: { app: 'gpu-operator' } },
};

/**
 * What a fixture release deploys, so syncs, health and removal are Argo CD's own behaviour: a
 * Deployment whose Pod the process node runs (health goes Progressing, then Healthy), a custom
 * resource of the chart's CRD (in crds/, as real charts ship them), and a ConfigMap Helm and
 * Argo CD keep on removal. Values: `fixture.image` (an image the process node cannot pull keeps
 * the release Progressing, then Degraded once `fixture.progressDeadlineSeconds` passes),
 * `fixture.replicas`.
 */
function templates(c: FixtureChart, content: FixtureContent): Map<string, string> {
  // The version and a checksum of the values in the Pod template, as many charts keep one, so
  // an upgrade or a values change restarts the workload.
  const version =
    content.versionInManifests === false
      ? ''
      : `\n        fixtures.testenv.aicr.local/chart-version: ${JSON.stringify(c.version)}` +
        '\n        fixtures.testenv.aicr.local/values: {{ toJson .Values | sha256sum | quote }}';
  const upstream = UPSTREAM_WORKLOAD[c.chart];
  const selector = `app.kubernetes.io/instance: {{ .Release.Name }}, app.kubernetes.io/name: ${c.chart}`;
  const versionLabel =
    upstream && content.versionInManifests !== false ? `, app.kubernetes.io/version: ${JSON.stringify(c.version)}` : '';
  const podLabels = Object.entries(upstream?.podLabels ?? {})
    .map(([k, v]) => `, ${k}: ${v}`)
    .join('');
  const workload = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${upstream?.name ?? '{{ .Release.Name }}-workload'}
  labels: {${selector}${versionLabel}}
spec:
  replicas: {{ .Values.fixture.replicas }}
  progressDeadlineSeconds: {{ .Values.fixture.progressDeadlineSeconds }}
  selector:
    matchLabels: {${selector}}
  template:
    metadata:
      labels: {${selector}${podLabels}}
      annotations:
        fixtures.testenv.aicr.local/chart: ${c.chart}${version}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: workload
          image: {{ .Values.fixture.image }}
`;
  const custom = `apiVersion: ${fixtureGroup(c.chart)}/v1
kind: Widget
metadata:
  name: {{ .Release.Name }}
spec:
  chart: ${c.chart}
`;
  const configMap = (suffix: string, annotations = ''): string =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-${suffix}\n` +
    `${annotations}data:\n  chart: ${c.chart}\n`;
  return new Map([
    ['templates/fixture.yaml', configMap('fixture')],
    ['templates/workload.yaml', workload],
    ['templates/widget.yaml', custom],
    ['templates/kept.yaml', configMap('kept', '  annotations:\n    helm.sh/resource-policy: keep\n')],
  ]);
}

/** API groups Kubernetes serves itself: their kinds need no CRD. */
const BUILT_IN_GROUP = /(^|\.)k8s\.io$|^(apps|batch|policy|autoscaling)$/;

/** The custom kinds a manifest (a Helm template, read as text) creates, besides CRDs themselves. */
export function customKindsOf(text: string): CustomKind[] {
  const kinds: CustomKind[] = [];
  for (const doc of text.split(/^---\s*$/m)) {
    const apiVersion = /^apiVersion:\s*(\S+)\s*$/m.exec(doc)?.[1];
    const kind = /^kind:\s*(\S+)\s*$/m.exec(doc)?.[1];
    if (!apiVersion || !kind || !apiVersion.includes('/')) continue;
    const [group = '', version = ''] = apiVersion.split('/');
    if (!group.includes('.') || BUILT_IN_GROUP.test(group)) continue;
    kinds.push({ group, version, kind });
  }
  return kinds;
}

/**
 * For each fixture chart, the CRDs its upstream chart would install for the custom resources
 * AICR's own manifests (a component's manifestFiles) create: a component's manifests go to its
 * own chart, or, for a manifest-only component, to the charts of the components it depends on
 * (skyhook-customizations' Skyhook resources need skyhook-operator's CRD). Without them Argo CD
 * could not apply those manifests.
 */
export function crdsByChart(
  registryText: string,
  overlayTexts: readonly string[],
  manifest: (path: string) => string | undefined,
): Map<string, CustomKind[]> {
  const registry = (parse(registryText) as RegistryDoc | null)?.components ?? [];
  const chartOf = new Map(
    registry.flatMap((c) =>
      c.name && c.helm?.defaultChart ? [[c.name, c.helm.defaultChart.split('/').pop() ?? '']] : [],
    ),
  );
  const refs = overlayTexts.flatMap((text) => (parse(text) as OverlayDoc | null)?.spec?.componentRefs ?? []);
  const out = new Map<string, CustomKind[]>();
  const add = (chart: string, kinds: readonly CustomKind[]): void => {
    const list = out.get(chart) ?? [];
    out.set(chart, [
      ...list,
      ...kinds.filter((k, i) => ![...list, ...kinds.slice(0, i)].some((x) => x.group === k.group && x.kind === k.kind)),
    ]);
  };
  for (const ref of refs) {
    const kinds = (ref.manifestFiles ?? []).flatMap((f) => customKindsOf(manifest(f) ?? ''));
    const own = ref.name ? chartOf.get(ref.name) : undefined;
    const targets = own ? [own] : (ref.dependencyRefs ?? []).flatMap((d) => chartOf.get(d) ?? []);
    for (const chart of targets) add(chart, kinds);
  }
  return out;
}

function customCrdYaml(k: CustomKind): string {
  const plural = `${k.kind.toLowerCase()}s`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${k.group}
spec:
  group: ${k.group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${k.kind.toLowerCase()}, kind: ${k.kind}, listKind: ${k.kind}List}
  versions:
    - name: ${k.version}
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`;
}

/**
 * A valid chart as `helm package` lays it out, under <chart>/: Chart.yaml, its CRDs in crds/, and
 * the templates above.
 */
export function packageFixture(c: FixtureChart, content: FixtureContent = {}): Uint8Array {
  const chartYaml =
    `apiVersion: v2\nname: ${c.chart}\nversion: ${JSON.stringify(c.version)}\n` +
    `description: test fixture standing in for the upstream ${c.chart} chart\n`;
  const files = new Map([
    [`${c.chart}/Chart.yaml`, utf8(chartYaml)],
    [
      `${c.chart}/values.yaml`,
      utf8(`fixture:\n  image: ${FIXTURE_WORKLOAD_IMAGE}\n  replicas: 1\n  progressDeadlineSeconds: 600\n`),
    ],
    [`${c.chart}/crds/widgets.yaml`, utf8(crdYaml(c.chart))],
    ...(content.crds ?? []).map(
      (k) =>
        [`${c.chart}/crds/${k.kind.toLowerCase()}.${k.group}.yaml`, utf8(customCrdYaml(k))] as [string, Uint8Array],
    ),
    ...[...templates(c, content)].map(([path, text]) => [`${c.chart}/${path}`, utf8(text)] as [string, Uint8Array]),
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
    (byChart[e.chart] ??= []).push({
      apiVersion: 'v2',
      name: e.chart,
      version: e.version,
      digest: e.digest,
      urls: [archiveName(e)],
      created: '2026-01-01T00:00:00Z',
    });
  }
  return stringify({ apiVersion: 'v1', entries: byChart, generated: '2026-01-01T00:00:00Z' });
}

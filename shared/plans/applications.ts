// From a plan's releases to the Argo CD Applications that deploy them. Each Application carries
// its whole release (sources and values in the spec, the rest in annotations), so
// applicationsToReleases (./applicationsRead.ts) rebuilds the same release set and planDigest
// gives the same digest: the Applications alone are enough to recover a lost plan (docs/plans.md).
import { ANNOTATION, ARGOCD, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../api/constants.ts';
import { KIND } from '../kube/kinds.ts';
import { canonicalJson } from './digest.ts';
import { type ChartSource, type JsonValue, type Release, type ReleaseSet, sortReleases } from './release.ts';

export type HelmValues = Release['values'];
export type SourceName = (typeof ARGOCD.sourceName)[keyof typeof ARGOCD.sourceName];

/** Where a source's values go: at most one of the two, none when the release has no values. */
export type HelmValuesFields = { valuesObject?: HelmValues; values?: string };

type SourceHelm = { releaseName: string } & HelmValuesFields;
/**
 * A chart pinned by its manifest digest (SEC-9): Argo CD's native OCI source, `oci://` and the
 * chart's repository, the digest as the revision; `helm` keeps it rendered as a Helm chart.
 */
export type PinnedOciSource = {
  name: SourceName;
  repoURL: string;
  path: '.';
  targetRevision: string;
  helm: SourceHelm;
};
/** A chart by version in the Helm-over-OCI form: what a plan without digests still gets. */
export type VersionOciSource = {
  name: SourceName;
  repoURL: string;
  chart: string;
  targetRevision: string;
  helm: SourceHelm;
};
export type HelmOciSource = PinnedOciSource | VersionOciSource;

/** Whether a source is the pinned form. */
export const isPinned = (s: HelmOciSource): s is PinnedOciSource => !('chart' in s);

/** The chart's name, which the pinned form carries as the last segment of its repoURL. */
export function sourceChart(s: HelmOciSource): string {
  return isPinned(s) ? s.repoURL.slice(s.repoURL.lastIndexOf('/') + 1) : s.chart;
}

export type PlanApplication = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: {
    project: string;
    destination: Destination & { namespace: string };
    source?: HelmOciSource;
    sources?: HelmOciSource[];
    syncPolicy: { automated: { prune: boolean; selfHeal: boolean }; syncOptions: string[] };
  };
};

/** Whose plan the Applications carry: written on every one of them. */
export interface PlanOwner {
  readonly runtimeUID: string;
  readonly planDigest: string;
}

/** The cluster Argo CD deploys to: by API server URL, or by the name it is registered under. */
export type Destination = { readonly server: string } | { readonly name: string };

export interface ApplicationOptions {
  /** The Argo CD project; `default` unless given. */
  readonly project?: string;
  /** The in-cluster server unless given. */
  readonly destination?: Destination;
  /** Argo CD's namespace, where its Applications live; `argocd` unless given. */
  readonly namespace?: string;
}

// Argo CD creates a release's namespace, and applies server-side so large CRDs (GPU operator,
// Prometheus) fit. Not part of the release set: the digest neither covers it nor reads it back.
/** Every owned Application's sync policy, as the plan writes it (and an emergency stop restores it). */
export const SYNC_POLICY = {
  automated: { prune: true, selfHeal: true },
  syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
} as const;

function hasEmptyMap(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(hasEmptyMap);
  if (value === null || typeof value !== 'object') return false;
  const children = Object.values(value);
  return children.length === 0 || children.some(hasEmptyMap);
}

/**
 * How a release's values ride on its source. `valuesObject` when the API server keeps them as
 * they are. Server-side apply stores an empty map as null once the same manager had filled it
 * (and refuses a `valuesObject` that became null), and for Helm null deletes a chart default
 * where `{}` keeps it; so values holding an empty map anywhere go in `values`, as JSON text,
 * which Helm reads as YAML with the same meaning and the API server stores as an opaque string.
 * No values, no field: an empty `valuesObject` would hit the same null.
 */
function helmValuesFields(values: HelmValues): HelmValuesFields {
  const children = Object.values(values);
  if (children.length === 0) return {};
  if (children.some(hasEmptyMap)) return { values: JSON.stringify(JSON.parse(canonicalJson(values)), null, 2) };
  // A copy: the Application must not share objects with the plan it came from.
  return { valuesObject: structuredClone(values) };
}

/**
 * Pinned by digest when the plan recorded one, so a chart pushed again under its version changes
 * nothing Argo CD deploys; by version otherwise (the rollout refuses to write such a release).
 */
function source(name: SourceName, chart: ChartSource, helm: SourceHelm): HelmOciSource {
  if (chart.digest)
    return {
      name,
      repoURL: `${ARGOCD.ociScheme}${chart.repoURL}/${chart.chart}`,
      path: '.',
      targetRevision: chart.digest,
      helm,
    };
  return { name, repoURL: chart.repoURL, chart: chart.chart, targetRevision: chart.version, helm };
}

/**
 * The chart source, then the manifests source. Values go on the chart, or on the manifests when
 * they are all there is.
 */
function sourcesOf(release: Release): [HelmOciSource, ...HelmOciSource[]] {
  const bare = { releaseName: release.name };
  const withValues = { ...bare, ...helmValuesFields(release.values) };
  const sources: HelmOciSource[] = [];
  if (release.chart) sources.push(source(ARGOCD.sourceName.chart, release.chart, withValues));
  if (release.manifests)
    sources.push(source(ARGOCD.sourceName.manifests, release.manifests, release.chart ? bare : withValues));
  const [first, ...rest] = sources;
  if (!first) throw new Error(`release ${release.name} has neither a chart nor manifests: the plan is malformed`);
  return [first, ...rest];
}

/** The chart version a source stands for: its revision, or, pinned, the version the Application's annotations keep. */
export function sourceVersion(app: Pick<PlanApplication, 'metadata'>, s: HelmOciSource): string {
  if (!isPinned(s)) return s.targetRevision;
  const key = s.name === ARGOCD.sourceName.chart ? ANNOTATION.chartVersion : ANNOTATION.manifestsVersion;
  return app.metadata.annotations[key] ?? s.targetRevision;
}

/** Order always; the others only when they say something, so absent reads back as none or false. */
function annotationsOf(release: Release, owner: PlanOwner): Record<string, string> {
  return {
    [ANNOTATION.runtimeUID]: owner.runtimeUID,
    [ANNOTATION.planDigest]: owner.planDigest,
    [ANNOTATION.releaseOrder]: String(release.order),
    ...(release.dependsOn.length > 0 ? { [ANNOTATION.dependsOn]: release.dependsOn.join(',') } : {}),
    ...(release.manual ? { [ANNOTATION.manual]: 'true' } : {}),
    ...(release.steps.length > 0 ? { [ANNOTATION.steps]: JSON.stringify(release.steps) } : {}),
    // A pinned source names the digest and not the version; both ride here too, for people and readers.
    ...(release.chart?.digest
      ? { [ANNOTATION.chartDigest]: release.chart.digest, [ANNOTATION.chartVersion]: release.chart.version }
      : {}),
    ...(release.manifests?.digest
      ? {
          [ANNOTATION.manifestsDigest]: release.manifests.digest,
          [ANNOTATION.manifestsVersion]: release.manifests.version,
        }
      : {}),
  };
}

function applicationOf(release: Release, owner: PlanOwner, options: ApplicationOptions): PlanApplication {
  const [first, ...rest] = sourcesOf(release);
  return {
    apiVersion: KIND.application.apiVersion,
    kind: KIND.application.kind,
    metadata: {
      name: release.name,
      namespace: options.namespace ?? NAMESPACES.argocd,
      labels: { [LABEL.managedBy]: MANAGED_BY_VALUE },
      annotations: annotationsOf(release, owner),
    },
    spec: {
      project: options.project ?? ARGOCD.defaultProject,
      destination: { ...(options.destination ?? { server: ARGOCD.inClusterServer }), namespace: release.namespace },
      // One source as `source`: `sources` is for the chart-and-manifests pair.
      ...(rest.length === 0 ? { source: first } : { sources: [first, ...rest] }),
      syncPolicy: { automated: { ...SYNC_POLICY.automated }, syncOptions: [...SYNC_POLICY.syncOptions] },
    },
  };
}

/** One Application per release, in deployment order. Pure: writing them is the caller's job. */
export function planToApplications(
  releases: ReleaseSet,
  owner: PlanOwner,
  options: ApplicationOptions = {},
): PlanApplication[] {
  return sortReleases(releases).map((release) => applicationOf(release, owner, options));
}

export {
  applicationToRelease,
  applicationsDigest,
  applicationsToReleases,
  type Rebuilt,
  type RebuiltDigest,
} from './applicationsRead.ts';

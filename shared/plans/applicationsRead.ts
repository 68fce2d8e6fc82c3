// From owned Argo CD Applications, as the API server returns them, back to the release set that
// planToApplications (./applications.ts) wrote. Only what a release holds is read: status,
// server-set metadata and the sync policy are ignored. Anything that would change what Argo CD
// deploys without showing in a release (another source form, another Helm release name, another
// cluster) is a problem naming the Application, never silently dropped.
import * as z from 'zod';
import { ANNOTATION, ARGOCD, LABEL, MANAGED_BY_VALUE } from '../api/constants.ts';
import { planDigest } from './digest.ts';
import { type ChartSource, type Release, ReleaseSchema, sortReleases } from './release.ts';

/**
 * Which digests count for a by-version source: `recorded`, the one its annotation carries (what
 * the plan recorded, so a plan rebuilt from Applications written before pinning keeps its digest);
 * `fetched`, only what Argo CD fetches by, so such a source has none and a plan that pins it reads
 * as a change a rollout must make (SEC-9).
 */
export type PinReading = 'recorded' | 'fetched';

export type Rebuilt = { ok: true; releases: Release[] } | { ok: false; problems: string[] };
export type RebuiltDigest = { ok: true; digest: string; releases: Release[] } | { ok: false; problems: string[] };

type Say = (problem: string) => void;
type Values = Release['values'];

const ValuesSchema = ReleaseSchema.shape.values;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

// Strict: a key neither source form has (helm.parameters, valueFiles…) could change what gets
// deployed without changing the release, so it is a problem.
const HelmSchema = z.strictObject({
  releaseName: z.string(),
  valuesObject: ValuesSchema.optional(),
  values: z.string().optional(),
});
const SourceNameSchema = z.enum([ARGOCD.sourceName.chart, ARGOCD.sourceName.manifests]);
/** Pinned by digest (SEC-9): oci://<repository>/<chart>, the chart's root, the digest as the revision. */
const PinnedSourceSchema = z.strictObject({
  name: SourceNameSchema,
  repoURL: z
    .string()
    .refine((url) => url.startsWith(ARGOCD.ociScheme) && url.lastIndexOf('/') > ARGOCD.ociScheme.length, {
      error: `repoURL must be ${ARGOCD.ociScheme}<repository>/<chart>`,
    }),
  path: z.literal('.'),
  targetRevision: z.string().regex(DIGEST, { error: 'targetRevision must be a manifest digest, sha256:<64 hex>' }),
  helm: HelmSchema,
});
/** By version, in the Helm-over-OCI form: a scheme-less repoURL, a chart, its exact version. */
const VersionSourceSchema = z.strictObject({
  name: SourceNameSchema,
  repoURL: z
    .string()
    .min(1)
    .refine((url) => !SCHEME.test(url), 'repoURL must have no scheme'),
  chart: z.string().min(1),
  targetRevision: z.string().min(1),
  helm: HelmSchema,
});
const SourceSchema = z.union([PinnedSourceSchema, VersionSourceSchema]);
type Source = z.output<typeof SourceSchema>;

const ApplicationSchema = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.looseObject({
    // Where the release runs is configuration (argocd.destination), not part of the release: only
    // the namespace is read back.
    destination: z.union([
      z.strictObject({ server: z.string().min(1), namespace: z.string().min(1) }),
      z.strictObject({ name: z.string().min(1), namespace: z.string().min(1) }),
    ]),
    source: SourceSchema.optional(),
    sources: z.array(SourceSchema).optional(),
  }),
});
type Application = z.output<typeof ApplicationSchema>;

const NameOnlySchema = z.object({ metadata: z.object({ name: z.string() }) });

function issueText(issue: z.core.$ZodIssue): string {
  const path = issue.path.join('.');
  const form = /^spec\.sources?\b/.test(path) ? ' (neither the pinned OCI form nor the Helm-over-OCI form)' : '';
  return `${path || 'the object'}: ${issue.message}${form}`;
}

function readOrder(raw: string | undefined, say: Say): number | undefined {
  if (raw === undefined) return undefined;
  if (/^(0|[1-9][0-9]*)$/.test(raw)) return Number(raw);
  say(`annotation ${ANNOTATION.releaseOrder} is not a whole number from 0: "${raw}"`);
  return undefined;
}

function readManual(raw: string | undefined, say: Say): boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw !== 'true') say(`annotation ${ANNOTATION.manual} is neither "true" nor "false": "${raw}"`);
  return raw === 'true';
}

function readSteps(raw: string | undefined, say: Say): string[] {
  if (raw === undefined) return [];
  try {
    const steps = z.array(z.string()).safeParse(JSON.parse(raw));
    if (steps.success) return steps.data;
  } catch {
    // Not JSON: reported below, like JSON that is not a list of strings.
  }
  say(`annotation ${ANNOTATION.steps} is not a JSON list of strings`);
  return [];
}

function readValuesText(text: string, say: Say): Values | undefined {
  try {
    const values = ValuesSchema.safeParse(JSON.parse(text));
    if (values.success) return values.data;
  } catch {
    // Not JSON: reported below, like JSON that is not an object.
  }
  say('helm.values is not a JSON object (the form planToApplications writes)');
  return undefined;
}

function readValues(helm: Source['helm'], say: Say): Values | undefined {
  if (helm.values !== undefined && helm.valuesObject !== undefined) {
    say('helm carries both values and valuesObject; Argo CD would use valuesObject alone');
    return undefined;
  }
  return helm.values !== undefined ? readValuesText(helm.values, say) : (helm.valuesObject ?? {});
}

/**
 * The chart a source deploys. Pinned, the digest is the source's revision and the version comes from
 * the annotations; by version, the digest the plan recorded (if any) comes from the annotations.
 */
function chartOf(s: Source, noted: { digest?: string; version?: string }, say: Say): ChartSource {
  if (!('chart' in s)) {
    const at = s.repoURL.lastIndexOf('/');
    if (noted.digest !== undefined && noted.digest !== s.targetRevision)
      say(`source "${s.name}" is pinned to ${s.targetRevision}, its annotation to ${noted.digest}`);
    if (noted.version === undefined) say(`source "${s.name}" is pinned by digest, with no chart version annotation`);
    return {
      repoURL: s.repoURL.slice(ARGOCD.ociScheme.length, at),
      chart: s.repoURL.slice(at + 1),
      version: noted.version ?? '',
      digest: s.targetRevision,
    };
  }
  return {
    repoURL: s.repoURL,
    chart: s.chart,
    version: s.targetRevision,
    ...(noted.digest ? { digest: noted.digest } : {}),
  };
}
const hasValues = (s: Source): boolean => s.helm.values !== undefined || s.helm.valuesObject !== undefined;

/** The listed sources, each named once, each rendered under the Application's name. */
function namedSources(app: Application, say: Say): Map<string, Source> {
  const { source, sources = [] } = app.spec;
  if (source && sources.length > 0) say('has both spec.source and spec.sources');
  const listed = sources.length > 0 ? sources : source ? [source] : [];
  if (listed.length === 0) say('has no source');
  const named = new Map<string, Source>();
  for (const s of listed) {
    if (named.has(s.name)) say(`has two sources named "${s.name}"`);
    if (s.helm.releaseName !== app.metadata.name)
      say(`source "${s.name}" renders as Helm release "${s.helm.releaseName}", not "${app.metadata.name}"`);
    named.set(s.name, s);
  }
  return named;
}

type ReleaseCharts = Pick<Release, 'chart' | 'manifests'> & { values?: Values | undefined };

/**
 * What the annotations note about a source: its recorded digest (SEC-5) and, pinned, its version.
 * Notes beside a source the Application lacks pin nothing Argo CD fetches, so they are not read.
 */
function notedOf(app: Application, keys: { digest: string; version: string }, source: Source | undefined) {
  const annotations = app.metadata.annotations ?? {};
  if (!source) return {};
  return {
    ...(annotations[keys.digest] ? { digest: annotations[keys.digest] } : {}),
    ...(annotations[keys.version] ? { version: annotations[keys.version] } : {}),
  };
}

function readSources(app: Application, say: Say, pins: PinReading): ReleaseCharts {
  const named = namedSources(app, say);
  const chart = named.get(ARGOCD.sourceName.chart);
  const manifests = named.get(ARGOCD.sourceName.manifests);
  if (chart && manifests && hasValues(manifests))
    say('the manifests source carries values; they belong on the chart source');
  const carrier = chart ?? manifests;
  const noted = (keys: { digest: string; version: string }, source: Source | undefined) => {
    const { digest, ...rest } = notedOf(app, keys, source);
    return pins === 'fetched' && source && 'chart' in source ? rest : { ...rest, ...(digest ? { digest } : {}) };
  };
  const chartNoted = noted({ digest: ANNOTATION.chartDigest, version: ANNOTATION.chartVersion }, chart);
  const manifestsNoted = noted({ digest: ANNOTATION.manifestsDigest, version: ANNOTATION.manifestsVersion }, manifests);
  return {
    ...(chart ? { chart: chartOf(chart, chartNoted, say) } : {}),
    ...(manifests ? { manifests: chartOf(manifests, manifestsNoted, say) } : {}),
    ...(carrier ? { values: readValues(carrier.helm, say) } : {}),
  };
}

/** The annotations a release needs; owner annotations must be there though the release does not hold them. */
function readAnnotations(
  app: Application,
  say: Say,
): Pick<Release, 'dependsOn' | 'manual' | 'steps'> & { order: number | undefined } {
  const annotations = app.metadata.annotations ?? {};
  for (const key of [ANNOTATION.runtimeUID, ANNOTATION.planDigest, ANNOTATION.releaseOrder]) {
    if (!annotations[key]) say(`missing annotation ${key}`);
  }
  if (app.metadata.labels?.[LABEL.managedBy] !== MANAGED_BY_VALUE)
    say(`missing label ${LABEL.managedBy}=${MANAGED_BY_VALUE}`);
  const dependsOn = annotations[ANNOTATION.dependsOn];
  return {
    order: readOrder(annotations[ANNOTATION.releaseOrder] || undefined, say),
    dependsOn: dependsOn ? dependsOn.split(',') : [],
    manual: readManual(annotations[ANNOTATION.manual], say),
    steps: readSteps(annotations[ANNOTATION.steps], say),
  };
}

function readApplication(raw: unknown, problems: string[], pins: PinReading): Release | undefined {
  const name = NameOnlySchema.safeParse(raw).data?.metadata.name ?? '(no name)';
  const before = problems.length;
  const say: Say = (problem) => problems.push(`Application ${name}: ${problem}`);
  const parsed = ApplicationSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) say(issueText(issue));
    return undefined;
  }
  const { values, ...charts } = readSources(parsed.data, say, pins);
  const fields = {
    name,
    namespace: parsed.data.spec.destination.namespace,
    ...readAnnotations(parsed.data, say),
    ...charts,
    values,
  };
  if (problems.length > before) return undefined;
  // Last, what only the release model knows (a name Argo CD allows but a release does not).
  const release = ReleaseSchema.safeParse(fields);
  if (!release.success) for (const issue of release.error.issues) say(issueText(issue));
  return release.data;
}

/** Across the set: names are the Applications' own, so an unreadable one still counts as present. */
function crossCheck(apps: readonly unknown[], releases: readonly Release[], problems: string[]): void {
  const names = new Set<string>();
  for (const app of apps) {
    const name = NameOnlySchema.safeParse(app).data?.metadata.name;
    if (name !== undefined && names.has(name)) problems.push(`Application ${name}: appears twice`);
    if (name !== undefined) names.add(name);
  }
  for (const r of releases) {
    for (const dep of r.dependsOn.filter((d) => !names.has(d)))
      problems.push(`Application ${r.name}: depends on "${dep}", which is not among the Applications`);
  }
}

/** The release set the Applications carry, or every problem found, each naming its Application. */
export function applicationsToReleases(apps: readonly unknown[], pins: PinReading = 'recorded'): Rebuilt {
  const problems: string[] = [];
  const releases = apps.map((app) => readApplication(app, problems, pins)).filter((r) => r !== undefined);
  crossCheck(apps, releases, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, releases: sortReleases(releases) };
}

/** The plan digest of the release set the Applications carry (planDigest of applicationsToReleases). */
export function applicationsDigest(apps: readonly unknown[]): RebuiltDigest {
  const rebuilt = applicationsToReleases(apps);
  return rebuilt.ok ? { ...rebuilt, digest: planDigest(rebuilt.releases) } : rebuilt;
}

/** One Application's release on its own (no checks across a set), or undefined when it does not read back as one. */
export function applicationToRelease(app: unknown): Release | undefined {
  return readApplication(app, [], 'recorded');
}

// The release set of a plan, built from the files of the Helm bundle AICR pushed: one release
// per component, in AICR's deploymentOrder, with the component's values inline and its chart
// and raw manifests named where the registry holds them. Pure: files in, releases out.
import { parse } from 'yaml';
import { type ChartSource, type JsonValue, type Release, ReleaseSchema } from './release.ts';
import { type ComponentRef, readRecipe, yamlErrorText } from './recipe.ts';
import { manifestFilesOf, manifestsChartName, manifestsChartVersion } from './manifestsChart.ts';

export const RECIPE_FILE = 'recipe.yaml';

export interface ChartRegistry {
  /**
   * `<registry host>/<repository>` without a scheme: where upstream charts are mirrored and
   * manifests charts pushed.
   */
  readonly repoURL: string;
}

export type BundleReleases =
  | { readonly ok: true; readonly releases: Release[]; readonly recipeText: string }
  | { readonly ok: false; readonly problem: string };

/** Thrown inside this module only, and returned as `{ ok: false, problem }`. */
class BundleProblem extends Error {}

const utf8 = new TextDecoder('utf-8');

function isMapping(value: unknown): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `<name>/values.yaml` as a plain object; an empty file is no values. AICR writes values with
 * a Go YAML encoder that quotes what YAML 1.1 would read otherwise (yes, 0644), so the 1.2
 * core schema reads them as Helm does.
 */
function valuesOf(files: ReadonlyMap<string, Uint8Array>, name: string): { [key: string]: JsonValue } {
  const path = `${name}/values.yaml`;
  const bytes = files.get(path);
  if (bytes === undefined)
    throw new BundleProblem(`${path} is missing: the bundle is incomplete; render it again with aicr bundle`);
  let doc: unknown;
  try {
    doc = parse(utf8.decode(bytes));
  } catch (err) {
    throw new BundleProblem(`${path} does not parse: ${yamlErrorText(err)}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isMapping(doc))
    throw new BundleProblem(
      `${path} is not a mapping of Helm values (it holds ${Array.isArray(doc) ? 'a list' : `a ${typeof doc}`})`,
    );
  return doc;
}

/** The upstream chart, as the registry mirrors it; undefined for a component of raw manifests only. */
function chartOf(ref: ComponentRef, registry: ChartRegistry): ChartSource | undefined {
  if (!ref.chart || !ref.source) return undefined;
  if (!ref.version)
    throw new BundleProblem(`${RECIPE_FILE}: component ${ref.name} names chart ${ref.chart} without a version`);
  return { repoURL: registry.repoURL, chart: ref.chart, version: ref.version };
}

function manifestsOf(
  files: ReadonlyMap<string, Uint8Array>,
  name: string,
  registry: ChartRegistry,
): ChartSource | undefined {
  const manifests = manifestFilesOf(files, name);
  if (manifests.size === 0) return undefined;
  return { repoURL: registry.repoURL, chart: manifestsChartName(name), version: manifestsChartVersion(manifests) };
}

/** Why zod refused a release, as `<field>: <message>`. */
function refusal(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const first = issues[0];
  return first
    ? `${first.path.map(String).join('.') || 'the release'}: ${first.message}`
    : 'it does not match the release schema';
}

function releaseOf(
  ref: ComponentRef,
  order: number,
  files: ReadonlyMap<string, Uint8Array>,
  registry: ChartRegistry,
): Release {
  if (ref.type !== undefined && ref.type !== 'Helm')
    throw new BundleProblem(
      `${RECIPE_FILE}: component ${ref.name} is of type ${ref.type}; plans carry Helm components only`,
    );
  if (!ref.namespace) throw new BundleProblem(`${RECIPE_FILE}: component ${ref.name} has no namespace`);
  const chart = chartOf(ref, registry);
  const manifests = manifestsOf(files, ref.name, registry);
  if (!chart && !manifests)
    throw new BundleProblem(
      `component ${ref.name} has neither a chart (chart and source in ${RECIPE_FILE}) nor files in ` +
        `${ref.name}/manifests/`,
    );
  const candidate = {
    name: ref.name,
    namespace: ref.namespace,
    order,
    ...(chart ? { chart } : {}),
    ...(manifests ? { manifests } : {}),
    values: valuesOf(files, ref.name),
    dependsOn: [...(ref.dependencyRefs ?? [])].sort(),
    manual: false,
    steps: [],
  };
  const checked = ReleaseSchema.safeParse(candidate);
  if (!checked.success)
    throw new BundleProblem(`component ${ref.name} does not make a valid release: ${refusal(checked.error.issues)}`);
  return checked.data;
}

/** The bundle's releases in deploymentOrder, or the first problem found, naming the file and the fix. */
export function releasesFromBundle(files: ReadonlyMap<string, Uint8Array>, registry: ChartRegistry): BundleReleases {
  const bytes = files.get(RECIPE_FILE);
  if (bytes === undefined)
    return {
      ok: false,
      problem: `${RECIPE_FILE} is missing at the bundle's root: is this a bundle made by aicr bundle?`,
    };
  const recipeText = utf8.decode(bytes);
  const read = readRecipe(recipeText);
  if (!read.ok) return read;
  const byName = new Map(read.recipe.componentRefs.map((c) => [c.name, c]));
  try {
    const releases = read.recipe.deploymentOrder.map((name, order) =>
      releaseOf(byName.get(name) as ComponentRef, order, files, registry),
    );
    return { ok: true, releases, recipeText };
  } catch (err) {
    if (err instanceof BundleProblem) return { ok: false, problem: err.message };
    throw err;
  }
}

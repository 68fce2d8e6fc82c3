// Copies the upstream chart of each release, from the chart repository AICR's recipe names for
// the component, to <registry.repository>/<chart>:<version>, before the plan that names it is
// written (ADR 0011). A chart already there at the same digest costs the index or one manifest
// read and pushes nothing, so later resolutions of the same versions stay cheap. Copies run a
// few at a time (pooled.ts): a first resolution of a recipe copies a dozen charts.
import type { Configuration } from '../../configuration/schema.ts';
import { ChartSourceError, RegistryRefusedError, TransientError } from '../../errors.ts';
import { type IndexReads, type UpstreamChart, copyChart } from '../../oci/chartCopy.ts';
import { parseReference } from '../../oci/reference.ts';
import { readRecipe } from '../../plans/recipe.ts';
import type { Release } from '../../plans/release.ts';
import type { MirrorFailure, Mirrored } from './mirror.ts';
import { REGISTRY_CONCURRENCY, pooled } from './pooled.ts';
import { chartUnavailable, unauthorizedRegistry } from '../../status/reasonMessages.resolved.ts';

export interface UpstreamInputs {
  readonly registry: Configuration['registry'];
  readonly dockerConfig: string;
  /** The bundle's recipe.yaml: where each component's chart comes from. */
  readonly recipeText: string;
  readonly releases: readonly Release[];
  readonly fetch?: typeof fetch;
}

export interface UpstreamCopy {
  readonly component: string;
  readonly up: UpstreamChart;
  readonly target: string;
}

/** Each release's upstream chart with the source the recipe names, and where it goes. */
export function upstreamCopies(recipeText: string, releases: readonly Release[], repository: string): UpstreamCopy[] {
  const read = readRecipe(recipeText);
  // The releases were built from this very text, so it reads; a failure here is a bug.
  if (!read.ok) throw new Error(`recipe.yaml of a built plan does not read: ${read.problem}`);
  const sources = new Map(read.recipe.componentRefs.map((c) => [c.name, c.source]));
  return releases.flatMap((r) => {
    const source = sources.get(r.name);
    if (!r.chart || !source) return [];
    return [
      {
        component: r.name,
        up: { source, chart: r.chart.chart, version: r.chart.version },
        target: `${repository}/${r.chart.chart}:${r.chart.version}`,
      },
    ];
  });
}

function unavailable(copy: UpstreamCopy, err: ChartSourceError | RegistryRefusedError): MirrorFailure {
  const message = chartUnavailable(copy.component, err.message, copy.up);
  return { ok: false, retry: false, reason: 'ChartUnavailable', message };
}

/** What the runtime shows when a copy fails; a failure of no known class is the framework's to handle. */
export function copyFailed(err: unknown, copy: UpstreamCopy, repository: string): MirrorFailure {
  const ours = parseReference(copy.target).registry;
  if (err instanceof RegistryRefusedError && err.registry === ours) {
    const message = unauthorizedRegistry(`mirroring ${copy.target}`, err.message, repository);
    return { ok: false, retry: false, reason: 'Unauthorized', message };
  }
  // An upstream OCI registry that refuses an anonymous pull has, for us, no such chart.
  if (err instanceof ChartSourceError || err instanceof RegistryRefusedError) return unavailable(copy, err);
  if (err instanceof TransientError)
    return {
      ok: false,
      retry: true,
      reason: 'Resolving',
      message: `[SERVICE_UNAVAILABLE] mirroring ${copy.target} from ${copy.up.source}: ${err.message}`,
    };
  throw err;
}

type Copied = { readonly ok: true; readonly component: string; readonly pushed: boolean; readonly digest: string };

async function copyOne(copy: UpstreamCopy, m: UpstreamInputs, indexes: IndexReads): Promise<Copied | MirrorFailure> {
  try {
    const options = {
      dockerConfig: m.dockerConfig,
      plainHTTP: m.registry.plainHTTP,
      ...(m.fetch ? { fetch: m.fetch } : {}),
    };
    const result = await copyChart(copy.up, copy.target, options, indexes);
    return { ok: true, component: copy.component, pushed: result.pushed, digest: result.digest };
  } catch (err) {
    return copyFailed(err, copy, m.registry.repository);
  }
}

/**
 * Copies every upstream chart the registry lacks; how many were pushed and the releases with the
 * digest each chart has in the registry now, or the first failure in deployment order.
 */
export async function mirrorUpstream(m: UpstreamInputs): Promise<Mirrored> {
  const copies = upstreamCopies(m.recipeText, m.releases, m.registry.repository);
  const indexes: IndexReads = new Map();
  const done = await pooled(copies, REGISTRY_CONCURRENCY, (c) => copyOne(c, m, indexes));
  if (!done.ok) return done;
  const digests = new Map(done.answers.map((d) => [d.component, d.digest]));
  const releases = m.releases.map((r) => {
    const digest = digests.get(r.name);
    return r.chart && digest ? { ...r, chart: { ...r.chart, digest } } : r;
  });
  return { ok: true, pushed: done.answers.filter((d) => d.pushed).length, releases };
}

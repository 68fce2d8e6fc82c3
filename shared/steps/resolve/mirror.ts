// Mirroring for the resolve step: each component's raw manifests from the bundle go to the
// cluster's registry as a Helm chart, <registry.repository>/<component>-manifests at the version
// the plan names, before the plan is written, so Argo CD never meets a plan whose sources are
// missing. It runs in the step with the lean OCI client rather than in a Job: these charts are a
// few KB, a chart already there costs one HEAD, and the client adds no dependency to the
// Lambda bundle. The upstream charts the recipe names are copied beside them (mirrorUpstream.ts).
import type { Configuration } from '../../configuration/schema.ts';
import { pushArtifact } from '../../oci/push.ts';
import { manifestFilesOf } from '../../plans/manifestsChart.ts';
import { packageManifestsChart } from '../../plans/manifestsChartPackage.ts';
import type { Release } from '../../plans/release.ts';
import { REGISTRY_CONCURRENCY, pooled } from './pooled.ts';
import { type RegistryFailure, registryFailure } from './registryFailure.ts';

export type MirrorFailure = RegistryFailure;
/** How many charts were pushed, and the releases with the digest each mirrored chart has in the registry (SEC-5). */
export type Mirrored = { readonly ok: true; readonly pushed: number; readonly releases: Release[] } | MirrorFailure;

export interface MirrorInputs {
  readonly registry: Configuration['registry'];
  readonly dockerConfig: string;
  readonly files: ReadonlyMap<string, Uint8Array>;
  readonly releases: readonly Release[];
}

function failed(err: unknown, target: string, repository: string): MirrorFailure {
  const failure = registryFailure(err, `mirroring ${target}`, repository);
  if (failure) return failure;
  throw err;
}

type Pushed = { readonly ok: true; readonly release: Release; readonly pushed: boolean };

async function pushManifests(m: MirrorInputs, release: Release): Promise<Pushed | MirrorFailure> {
  if (!release.manifests) return { ok: true, release, pushed: false };
  const chart = packageManifestsChart(release.name, manifestFilesOf(m.files, release.name));
  // The plan's version and the package's come from one function; a difference is a bug here.
  if (chart.version !== release.manifests.version)
    throw new Error(
      `manifests chart of ${release.name}: packaged ${chart.version}, the plan names ${release.manifests.version}`,
    );
  const target = `${m.registry.repository}/${chart.name}:${chart.version}`;
  try {
    const result = await pushArtifact(target, chart.artifact, {
      dockerConfig: m.dockerConfig,
      plainHTTP: m.registry.plainHTTP,
    });
    return {
      ok: true,
      release: { ...release, manifests: { ...release.manifests, digest: result.digest } },
      pushed: result.pushed,
    };
  } catch (err) {
    return failed(err, target, m.registry.repository);
  }
}

/**
 * Pushes each release's manifests chart that the registry lacks; how many were pushed, and each
 * manifests source with its digest.
 */
export async function mirrorManifests(m: MirrorInputs): Promise<Mirrored> {
  const done = await pooled(m.releases, REGISTRY_CONCURRENCY, (r) => pushManifests(m, r));
  if (!done.ok) return done;
  return {
    ok: true,
    pushed: done.answers.filter((d) => d.pushed).length,
    releases: done.answers.map((d) => d.release),
  };
}

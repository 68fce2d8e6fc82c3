// Reading a rendered bundle for the resolve step: the pull, with the credentials the step got
// (shared/registry/credentials.ts), and the bundle's files turned into releases, with every way
// it can fail turned into what the runtime shows.
import type { Configuration } from '../../configuration/schema.ts';
import { BundleUnreadableError, RegistryCredentialsInvalidError } from '../../errors.ts';
import { pullArtifactFiles } from '../../oci/pull.ts';
import { releasesFromBundle } from '../../plans/fromBundle.ts';
import { namespaceOutside } from '../../plans/namespaceReach.ts';
import type { Release } from '../../plans/release.ts';
import { type RegistryFailure, registryFailure } from './registryFailure.ts';

export type BundleRead =
  | {
      readonly ok: true;
      readonly releases: Release[];
      readonly recipeText: string;
      readonly files: ReadonlyMap<string, Uint8Array>;
    }
  | RegistryFailure;

function failed(err: unknown, reference: string, repository: string): BundleRead {
  const failure = registryFailure(err, `pulling bundle ${reference}`, repository);
  if (failure) return failure;
  if (err instanceof RegistryCredentialsInvalidError)
    return {
      ok: false,
      retry: true,
      reason: 'RegistryCredentialsUnavailable',
      message: `registry credentials: ${err.message}`,
    };
  if (err instanceof BundleUnreadableError)
    return {
      ok: false,
      retry: false,
      reason: 'BundleUnreadable',
      message: `${err.message}; request a snapshot to render it again`,
    };
  throw err;
}

export async function readBundle(
  configuration: Configuration,
  dockerConfig: string,
  reference: string,
): Promise<BundleRead> {
  let files: Map<string, Uint8Array>;
  try {
    files = await pullArtifactFiles(reference, { dockerConfig, plainHTTP: configuration.registry.plainHTTP });
  } catch (err) {
    return failed(err, reference, configuration.registry.repository);
  }
  const built = releasesFromBundle(files, { repoURL: configuration.registry.repository });
  if (!built.ok)
    return {
      ok: false,
      retry: false,
      reason: 'BundleUnreadable',
      message: `bundle ${reference}: ${built.problem}; request a snapshot to render it again`,
    };
  const outside = namespaceOutside(built.releases, files, configuration.argocd.namespaces);
  if (outside)
    return {
      ok: false,
      retry: false,
      reason: 'NamespaceNotAllowed',
      message:
        `release ${outside.release} would put objects in namespace ${outside.namespace}` +
        `${outside.file ? ` (${outside.file})` : ''}, which argocd.namespaces does not list; ` +
        'add it to the chart value argocd.namespaces (helm upgrade) if the recipe should deploy there, ' +
        'then request a snapshot',
    };
  return { ok: true, releases: built.releases, recipeText: built.recipeText, files };
}

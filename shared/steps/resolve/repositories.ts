// Before anything is pushed, every repository the plan's charts go to exists: the manifests
// charts and the upstream copies, each `<registry.repository>/<chart>`. In aws mode ECR is asked
// to create the missing ones (shared/registry/ecrRepositories.ts); elsewhere nothing is done.
import { RegistryUnavailableError } from '../../errors.ts';
import { parseReference } from '../../oci/reference.ts';
import type { Release } from '../../plans/release.ts';
import { RepositoryCreationRefusedError, type RepositoryCreator } from '../../registry/ecrRepositories.ts';
import type { MirrorFailure } from './mirror.ts';

/** The charts the releases push: each upstream chart and each manifests chart. */
export function chartNames(releases: readonly Release[]): string[] {
  return [
    ...new Set(
      releases.flatMap((r) => [r.chart?.chart, r.manifests?.chart].filter((c): c is string => c !== undefined)),
    ),
  ];
}

/** Repository names as ECR knows them (without the registry host): `<prefix>/<name>`. */
export function repositoriesUnder(registryRepository: string, names: readonly string[]): string[] {
  const prefix = parseReference(`${registryRepository}/x:t`).repository.replace(/\/x$/, '');
  return names.map((n) => `${prefix}/${n}`);
}

/** Creates what is missing of `<registry.repository>/<name>` for each name; a refusal stalls with what to grant. */
export async function ensureRepositories(
  create: RepositoryCreator,
  registryRepository: string,
  names: readonly string[],
): Promise<{ readonly ok: true } | MirrorFailure> {
  for (const repository of repositoriesUnder(registryRepository, names)) {
    try {
      await create(repository);
    } catch (err) {
      if (err instanceof RepositoryCreationRefusedError)
        return { ok: false, retry: false, reason: 'Unauthorized', message: `${err.message}; then request a snapshot` };
      if (err instanceof RegistryUnavailableError)
        return { ok: false, retry: true, reason: 'Resolving', message: `[SERVICE_UNAVAILABLE] ${err.message}` };
      throw err;
    }
  }
  return { ok: true };
}

// What resolution needs of the registry: render pushes and the plan phase pulls, so both need
// credentials, here and in aicr-jobs (REG-3); and in aws mode, when the deployment creates
// repositories, the bundle's repository must exist before the push. Read only when the registry is
// about to be used (a render Job created, a bundle not yet planned), so a look that waits on a run
// or finds the plan recorded reads no Secret.
import { BUNDLE_REPOSITORY } from '../../aicr/renderStage.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { StalledError } from '../../errors.ts';
import { type CredentialUse, registryCredentials } from '../../registry/credentials.ts';
import { type RepositoryCreator, createEcrRepository, createsRepositories } from '../../registry/ecrRepositories.ts';
import type { StepContext } from '../../look/contract.ts';
import type { MirrorFailure } from './mirror.ts';
import { ensureRepositories } from './repositories.ts';

export type RegistryAccess =
  { readonly ok: true; readonly dockerConfig: string; readonly createRepository?: RepositoryCreator } | MirrorFailure;

export async function registryAccess(
  ctx: StepContext,
  registry: Configuration['registry'],
  use: CredentialUse,
): Promise<RegistryAccess> {
  if (!registry.repository) {
    throw new StalledError(
      'InvalidConfiguration',
      "configuration: registry.repository is empty; set it in the chart's values to <host>/<prefix> where " +
        'bundles are pushed',
    );
  }
  const credentials = await registryCredentials(
    { kube: ctx.kube, now: ctx.now, staleWithinMs: ctx.timings.tokenStaleWithinMs },
    registry,
    use,
  );
  if (!credentials.ok)
    return { ok: false, retry: true, reason: 'RegistryCredentialsUnavailable', message: credentials.message };
  const createRepository = registry.auth.mode === 'aws' && createsRepositories() ? createEcrRepository : undefined;
  if (!createRepository) return { ok: true, dockerConfig: credentials.dockerConfig };
  if (use === 'step') return { ok: true, dockerConfig: credentials.dockerConfig, createRepository };
  const made = await ensureRepositories(createRepository, registry.repository, [BUNDLE_REPOSITORY]);
  if (!made.ok) return made;
  return { ok: true, dockerConfig: credentials.dockerConfig, createRepository };
}

/** Why a render Job was not created: the registry it pushes to cannot be used. */
export class RegistryAccessRefused extends Error {
  readonly failure: MirrorFailure;
  constructor(failure: MirrorFailure) {
    super(failure.message);
    this.failure = failure;
    this.name = 'RegistryAccessRefused';
  }
}

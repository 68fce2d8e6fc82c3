// Reading a rendered bundle for the resolve step: the registry credentials of the
// configuration, the pull, and the bundle's files turned into releases, with every way it can
// fail turned into what the runtime shows.
import { NAMESPACES } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { BundleUnreadableError, RegistryCredentialsInvalidError, RegistryRefusedError, RegistryUnavailableError } from '../../errors.ts';
import { KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { pullArtifactFiles } from '../../oci/pull.ts';
import { releasesFromBundle } from '../../plans/fromBundle.ts';
import type { Release } from '../../plans/release.ts';
import type { Reason } from '../../status/reasons.ts';

export type BundleRead =
  | { readonly ok: true; readonly releases: Release[]; readonly recipeText: string }
  | { readonly ok: false; readonly retry: boolean; readonly reason: Reason; readonly message: string };

const DOCKER_CONFIG_KEY = '.dockerconfigjson';

/** The docker config the control plane pulls with, or why there is none. */
async function dockerConfig(kube: KubePort, configuration: Configuration): Promise<{ text: string } | { problem: string }> {
  const { auth } = configuration.registry;
  if (auth.mode !== 'static') return { problem: `registry.auth.mode ${auth.mode}: this control plane pulls bundles only with static credentials so far; set registry.auth.mode: static and staticSecretRef` };
  if (!auth.staticSecretRef) return { problem: 'registry.auth.staticSecretRef is empty; name a docker-config Secret in aicr-system' };
  const secret = await kube.get(KIND.secret, auth.staticSecretRef, NAMESPACES.system);
  const data = (secret as { data?: Record<string, string> } | undefined)?.data?.[DOCKER_CONFIG_KEY];
  if (!secret) return { problem: `static credentials: Secret ${NAMESPACES.system}/${auth.staticSecretRef} (registry.auth.staticSecretRef) does not exist; create it (type kubernetes.io/dockerconfigjson)` };
  if (!data) return { problem: `static credentials: Secret ${NAMESPACES.system}/${auth.staticSecretRef} has no ${DOCKER_CONFIG_KEY} key; recreate it as type kubernetes.io/dockerconfigjson` };
  return { text: Buffer.from(data, 'base64').toString('utf8') };
}

function failed(err: unknown, reference: string, repository: string): BundleRead {
  if (err instanceof RegistryUnavailableError) return { ok: false, retry: true, reason: 'Resolving', message: `[SERVICE_UNAVAILABLE] pulling bundle ${reference}: ${err.message}` };
  if (err instanceof RegistryRefusedError) {
    const message = `pulling bundle ${reference}: ${err.message}. Check that the credentials may pull and push under the repository prefix registry.repository=${repository}, then request a snapshot`;
    return { ok: false, retry: false, reason: 'Unauthorized', message };
  }
  if (err instanceof RegistryCredentialsInvalidError) return { ok: false, retry: true, reason: 'RegistryCredentialsUnavailable', message: `static credentials: ${err.message}` };
  if (err instanceof BundleUnreadableError) return { ok: false, retry: false, reason: 'BundleUnreadable', message: `${err.message}; request a snapshot to render it again` };
  throw err;
}

export async function readBundle(kube: KubePort, configuration: Configuration, reference: string): Promise<BundleRead> {
  const credentials = await dockerConfig(kube, configuration);
  if ('problem' in credentials) return { ok: false, retry: true, reason: 'RegistryCredentialsUnavailable', message: credentials.problem };
  let files: Map<string, Uint8Array>;
  try {
    files = await pullArtifactFiles(reference, { dockerConfig: credentials.text, plainHTTP: configuration.registry.plainHTTP });
  } catch (err) {
    return failed(err, reference, configuration.registry.repository);
  }
  const built = releasesFromBundle(files, { repoURL: configuration.registry.repository });
  if (!built.ok) return { ok: false, retry: false, reason: 'BundleUnreadable', message: `bundle ${reference}: ${built.problem}; request a snapshot to render it again` };
  return { ok: true, releases: built.releases, recipeText: built.recipeText };
}

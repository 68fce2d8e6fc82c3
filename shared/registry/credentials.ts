// Registry credentials for the control plane's own pulls and for the Jobs that push, in the two
// modes of registry.auth (REG-3). static: a person keeps one docker-config Secret, named by
// registry.auth.staticSecretRef, in aicr-system (the control plane's copy) and in the Job and
// validation namespaces (the Jobs mount or pull with theirs). aws: the control plane mints an
// ECR token with its own identity and writes it as a docker-config Secret in aicr-jobs, reusing
// it while it is fresh. Whatever is missing is named in one message, so a person fixes it at once.
import {
  ANNOTATION,
  DOCKER_CONFIG_KEY,
  FIELD_MANAGER,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  REGISTRY_JOB_SECRET,
} from '../api/constants.ts';
import type { Configuration } from '../configuration/schema.ts';
import { RegistryCredentialsInvalidError } from '../errors.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort, WritableObject } from '../kube/port.ts';
import { credentialsFor } from '../oci/credentials.ts';
import { type TokenMinter, mintEcrToken } from './ecrToken.ts';

export type RegistryCredentials =
  { readonly ok: true; readonly dockerConfig: string } | { readonly ok: false; readonly message: string };

export interface CredentialDeps {
  readonly kube: KubePort;
  readonly now: () => Date;
  /** A minted token expiring within this is minted again rather than reused. */
  readonly staleWithinMs: number;
  /** Tests and local mode may pass their own; the default calls ECR. */
  readonly mint?: TokenMinter;
}

type SecretRead = { readonly text: string } | { readonly absent: true } | { readonly problem: string };

function dataOf(secret: unknown): Record<string, string> | undefined {
  return (secret as { data?: Record<string, string> } | undefined)?.data;
}

/** The docker config a Secret holds for `host`, or what is wrong with it. */
async function readDockerConfig(kube: KubePort, name: string, namespace: string, host: string): Promise<SecretRead> {
  const secret = await kube.get(KIND.secret, name, namespace);
  if (!secret) return { absent: true };
  const encoded = dataOf(secret)?.[DOCKER_CONFIG_KEY];
  if (!encoded)
    return {
      problem:
        `Secret ${namespace}/${name} has no ${DOCKER_CONFIG_KEY} key; recreate it as type ` +
        `kubernetes.io/dockerconfigjson`,
    };
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  try {
    // Only its form is checked: a config without an entry for the host pulls anonymously, and a
    // registry that refuses that says so itself (Unauthorized).
    credentialsFor(text, host);
  } catch (err) {
    if (err instanceof RegistryCredentialsInvalidError)
      return { problem: `Secret ${namespace}/${name}: ${err.message}` };
    throw err;
  }
  return { text };
}

/** The namespaces among `namespaces` without a Secret of this name. */
async function lackingIn(kube: KubePort, name: string, namespaces: readonly string[]): Promise<string[]> {
  const found = await Promise.all(namespaces.map(async (ns) => (await kube.get(KIND.secret, name, ns)) !== undefined));
  return namespaces.filter((_, i) => !found[i]);
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1) ?? ''}`;
}

/** The control plane's copy in aicr-system, once `besides` (the namespaces of the Jobs that use it) have theirs too. */
async function staticCredentials(
  kube: KubePort,
  name: string,
  host: string,
  besides: readonly string[],
): Promise<RegistryCredentials> {
  const mode = 'registry.auth.mode static';
  if (!name)
    return {
      ok: false,
      message:
        `${mode}: registry.auth.staticSecretRef is empty; name a docker-config Secret in ` +
        `${listed([NAMESPACES.system, ...besides])}`,
    };
  const own = await readDockerConfig(kube, name, NAMESPACES.system, host);
  // Resolution needs the control plane's copy and the render Jobs'; the other namespaces are
  // looked at only to name every place a missing Secret has to go.
  const needed: readonly string[] = besides.filter((ns) => ns === NAMESPACES.jobs);
  const lackingNeeded = await lackingIn(kube, name, needed);
  if ('text' in own && lackingNeeded.length === 0) return { ok: true, dockerConfig: own.text };
  const lackingRest = await lackingIn(
    kube,
    name,
    besides.filter((ns) => !needed.includes(ns)),
  );
  const others = besides.filter((ns) => lackingNeeded.includes(ns) || lackingRest.includes(ns));
  const lacking = [...('absent' in own ? [NAMESPACES.system] : []), ...others];
  const parts = [
    ...(lacking.length > 0
      ? [
          `the docker-config Secret ${name} (registry.auth.staticSecretRef) is missing in ` +
            `${lacking.join(', ')}; create it there (type kubernetes.io/dockerconfigjson)`,
        ]
      : []),
    ...('problem' in own ? [own.problem] : []),
  ];
  return { ok: false, message: `${mode}: ${parts.join('; ')}` };
}

function jobSecret(dockerConfig: string, expiresAt: Date): WritableObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: {
      name: REGISTRY_JOB_SECRET,
      namespace: NAMESPACES.jobs,
      labels: { [LABEL.managedBy]: MANAGED_BY_VALUE },
      annotations: { [ANNOTATION.tokenExpiresAt]: expiresAt.toISOString() },
    },
    data: { [DOCKER_CONFIG_KEY]: Buffer.from(dockerConfig).toString('base64') },
  };
}

/** The Jobs' Secret when it holds a token for `host` that is not about to expire. */
async function freshJobSecret(deps: CredentialDeps, host: string): Promise<string | undefined> {
  const secret = await deps.kube.get(KIND.secret, REGISTRY_JOB_SECRET, NAMESPACES.jobs);
  const expiresAt = Date.parse(secret?.metadata.annotations?.[ANNOTATION.tokenExpiresAt] ?? '');
  if (!secret || !(expiresAt > deps.now().getTime() + deps.staleWithinMs)) return undefined;
  const read = await readDockerConfig(deps.kube, REGISTRY_JOB_SECRET, NAMESPACES.jobs, host);
  return 'text' in read ? read.text : undefined;
}

type MintedConfig =
  | { readonly ok: true; readonly dockerConfig: string; readonly expiresAt: Date }
  | { readonly ok: false; readonly message: string };

/** A docker config for `host` holding an ECR token minted with the caller's own identity. */
async function mintDockerConfig(mint: TokenMinter | undefined, host: string, fix: string): Promise<MintedConfig> {
  const minted = await (mint ?? mintEcrToken)();
  if (!minted.ok)
    return { ok: false, message: `registry.auth.mode aws: minting an ECR token failed (${minted.cause}); ${fix}` };
  return {
    ok: true,
    dockerConfig: JSON.stringify({ auths: { [host]: { auth: minted.token.auth } } }),
    expiresAt: minted.token.expiresAt,
  };
}

async function awsCredentials(deps: CredentialDeps, host: string): Promise<RegistryCredentials> {
  const reused = await freshJobSecret(deps, host);
  if (reused !== undefined) return { ok: true, dockerConfig: reused };
  const minted = await mintDockerConfig(
    deps.mint,
    host,
    "check the control plane's AWS identity (its role, or in local mode the EKS Pod Identity " +
      'association or IRSA annotation) and that its policy allows ecr:GetAuthorizationToken',
  );
  if (!minted.ok) return minted;
  await deps.kube.apply(KIND.secret, jobSecret(minted.dockerConfig, minted.expiresAt), {
    fieldManager: FIELD_MANAGER.resolve,
    force: true,
  });
  return { ok: true, dockerConfig: minted.dockerConfig };
}

/**
 * Who is about to use the registry: the step alone (its own pulls and pushes), or the step and
 * the Jobs it is about to create, whose copies in static mode are checked then too.
 */
export type CredentialUse = 'step' | 'step-and-jobs';

/**
 * The docker config the control plane pulls and pushes with, and for `step-and-jobs` once the
 * Jobs have theirs too; or why there is none (RegistryCredentialsUnavailable: a person should
 * look, and it is retried).
 */
export async function registryCredentials(
  deps: CredentialDeps,
  registry: Configuration['registry'],
  use: CredentialUse = 'step-and-jobs',
): Promise<RegistryCredentials> {
  const host = registry.repository.split('/')[0] ?? '';
  if (registry.auth.mode === 'aws') return await awsCredentials(deps, host);
  const besides = use === 'step' ? [] : [NAMESPACES.jobs, NAMESPACES.validation];
  return await staticCredentials(deps.kube, registry.auth.staticSecretRef, host, besides);
}

/**
 * The docker config a step that only reads the registry pulls with: in static mode the control
 * plane's copy in aicr-system, in aws mode a token minted with the step's own role. Nothing is
 * written, so a step without rights to the Jobs' Secrets can check what the registry holds.
 */
export async function pullCredentials(
  deps: Pick<CredentialDeps, 'kube' | 'mint'>,
  registry: Configuration['registry'],
): Promise<RegistryCredentials> {
  const host = registry.repository.split('/')[0] ?? '';
  if (registry.auth.mode === 'static')
    return await staticCredentials(deps.kube, registry.auth.staticSecretRef, host, []);
  const minted = await mintDockerConfig(deps.mint, host, "check that the step's role allows ecr:GetAuthorizationToken");
  return minted.ok ? { ok: true, dockerConfig: minted.dockerConfig } : minted;
}

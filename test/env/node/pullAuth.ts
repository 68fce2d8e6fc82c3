// Pull credentials as a kubelet finds them: from the Secrets a Pod names in imagePullSecrets
// (docker config JSON or the older dockercfg), matched to the image's registry host and path.
// STAND-IN for the registry's side: a private image-table entry is "served" by a registry
// host whose accounts are an htpasswd file the test environment owns ({SHA} hashes), so a
// pull succeeds only with a credential that file accepts.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { CoreV1Api, V1Pod, V1Secret } from '@kubernetes/client-node';
import { fullReference } from './images.ts';

export interface Credential {
  readonly username: string;
  readonly password: string;
}

/** What the registry answers a pull: served, no credentials given, or credentials refused. */
export type PullAnswer = 'ok' | 'anonymous' | 'refused';

interface AuthEntry {
  readonly username?: string;
  readonly password?: string;
  readonly auth?: string;
}

function entriesOf(secret: V1Secret): Record<string, AuthEntry> {
  const data = secret.data ?? {};
  const decode = (v: string | undefined): unknown =>
    v === undefined ? undefined : JSON.parse(Buffer.from(v, 'base64').toString());
  try {
    if (secret.type === 'kubernetes.io/dockerconfigjson')
      return (decode(data['.dockerconfigjson']) as { auths?: Record<string, AuthEntry> } | undefined)?.auths ?? {};
    if (secret.type === 'kubernetes.io/dockercfg')
      return (decode(data['.dockercfg']) as Record<string, AuthEntry> | undefined) ?? {};
  } catch {
    // A malformed config gives no credentials, as the kubelet's keyring skips it.
  }
  return {};
}

function credentialOf(entry: AuthEntry): Credential | undefined {
  if (entry.username !== undefined && entry.password !== undefined)
    return { username: entry.username, password: entry.password };
  if (!entry.auth) return undefined;
  const decoded = Buffer.from(entry.auth, 'base64').toString();
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Whether a config key ("host", "https://host", "host/path") covers the image reference. */
export function keyMatches(key: string, image: string): boolean {
  const wanted = key.replace(/^[a-z]+:\/\//, '').replace(/\/+$/, '');
  const repo = fullReference(image).replace(/[:@][^/]*$/, '');
  return repo === wanted || repo.startsWith(`${wanted}/`);
}

/** The credentials the Pod's pull Secrets hold for the image; Secrets that are gone are skipped. */
export async function pullCredentials(core: CoreV1Api, pod: V1Pod, image: string): Promise<Credential[]> {
  const namespace = pod.metadata?.namespace ?? '';
  const found: Credential[] = [];
  for (const ref of pod.spec?.imagePullSecrets ?? []) {
    let secret: V1Secret;
    try {
      secret = await core.readNamespacedSecret({ name: ref.name ?? '', namespace });
    } catch {
      continue;
    }
    for (const [key, entry] of Object.entries(entriesOf(secret))) {
      const cred = keyMatches(key, image) ? credentialOf(entry) : undefined;
      if (cred) found.push(cred);
    }
  }
  return found;
}

function sha1Matches(hash: string, password: string): boolean {
  const want = Buffer.from(hash.slice('{SHA}'.length), 'base64');
  const got = createHash('sha1').update(password).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The registry's check of the credentials against its htpasswd accounts. */
export async function registryAnswer(htpasswd: string, credentials: readonly Credential[]): Promise<PullAnswer> {
  if (credentials.length === 0) return 'anonymous';
  const text = await readFile(htpasswd, 'utf8').catch(() => '');
  const accounts = new Map(
    text
      .split('\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as const),
  );
  const accepted = credentials.some((c) => {
    const hash = accounts.get(c.username);
    return hash?.startsWith('{SHA}') === true && sha1Matches(hash, c.password);
  });
  return accepted ? 'ok' : 'refused';
}

// Which credentials Argo CD's repo-server would use for a repoURL: a `repository` Secret whose
// url is the same URL and carries credentials wins; otherwise the `repo-creds` template whose
// url is the longest plain string prefix of the repoURL (no path-segment boundaries, as in
// Argo CD). Both URLs are lowercased, trimmed and lose a `.git` suffix first.
import type { V1Secret } from '@kubernetes/client-node';
import { SECRET_TYPE_LABEL } from './types.ts';

export interface RepoCreds {
  /** The Secret the credentials came from, for messages. */
  readonly secret: string;
  readonly username: string;
  readonly password: string;
  /** Plain HTTP instead of HTTPS (insecureOCIForceHttp). */
  readonly plainHttp: boolean;
}

export function normaliseUrl(url: string): string {
  return url.trim().toLowerCase().replace(/\.git$/, '');
}

function field(secret: V1Secret, key: string): string {
  const raw = secret.data?.[key];
  return raw === undefined ? (secret.stringData?.[key] ?? '') : Buffer.from(raw, 'base64').toString('utf8');
}

const typeOf = (s: V1Secret): string => s.metadata?.labels?.[SECRET_TYPE_LABEL] ?? '';
const hasCreds = (s: V1Secret): boolean => field(s, 'username') !== '' || field(s, 'password') !== '';
const truthy = (v: string): boolean => ['true', '1', 't', 'yes'].includes(v.trim().toLowerCase());

function longestPrefixTemplate(secrets: readonly V1Secret[], repo: string): V1Secret | undefined {
  let best: V1Secret | undefined;
  let bestLength = -1;
  for (const s of secrets.filter((x) => typeOf(x) === 'repo-creds')) {
    const url = normaliseUrl(field(s, 'url'));
    if (url !== '' && repo.startsWith(url) && url.length > bestLength) {
      best = s;
      bestLength = url.length;
    }
  }
  return best;
}

/** The credentials for `repoURL`, or undefined when no Secret matches it. */
export function credentialsFor(secrets: readonly V1Secret[], repoURL: string): RepoCreds | undefined {
  const repo = normaliseUrl(repoURL);
  const repository = secrets.find((s) => typeOf(s) === 'repository' && normaliseUrl(field(s, 'url')) === repo);
  const template = repository && hasCreds(repository) ? undefined : longestPrefixTemplate(secrets, repo);
  const from = repository && hasCreds(repository) ? repository : template;
  if (!from) return undefined;
  // A template's insecureOCIForceHttp is always inherited by the repository it serves.
  const plainHttp = truthy(field(from, 'insecureOCIForceHttp')) || (repository !== undefined && truthy(field(repository, 'insecureOCIForceHttp')));
  return { secret: from.metadata?.name ?? '', username: field(from, 'username'), password: field(from, 'password'), plainHttp };
}

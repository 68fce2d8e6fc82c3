// Registry credentials as a docker config holds them (the `.dockerconfigjson` of a pull
// Secret), and the Bearer challenge a token-based registry answers with. ECR and the test
// registry take Basic credentials directly; most other registries trade them for a token.
import * as z from 'zod';
import { RegistryCredentialsInvalidError } from '../errors.ts';

export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

const AuthEntrySchema = z.looseObject({
  auth: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
});
const DockerConfigSchema = z.looseObject({ auths: z.record(z.string(), AuthEntrySchema).optional() });
type AuthEntry = z.output<typeof AuthEntrySchema>;

/** `auths` keys may carry a scheme or a path (`https://host/v1/`); only host[:port] identifies a registry. */
function hostOfKey(key: string): string {
  return (
    key
      .replace(/^[a-z]+:\/\//i, '')
      .split('/')[0]
      ?.toLowerCase() ?? ''
  );
}

function parseConfig(text: string): z.output<typeof DockerConfigSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RegistryCredentialsInvalidError('it is not JSON');
  }
  const parsed = DockerConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new RegistryCredentialsInvalidError('"auths" must map registry hosts to objects of string fields');
  return parsed.data;
}

function fromEntry(entry: AuthEntry, registry: string): BasicCredentials | undefined {
  if (entry.auth) {
    const pair = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0)
      throw new RegistryCredentialsInvalidError(`the "auth" of ${registry} is not base64 of user:password`);
    return { username: pair.slice(0, colon), password: pair.slice(colon + 1) };
  }
  if (entry.username !== undefined && entry.password !== undefined)
    return { username: entry.username, password: entry.password };
  return undefined;
}

/** The credentials a docker config holds for `registry` (host[:port]); undefined when it has none. */
export function credentialsFor(dockerConfig: string | undefined, registry: string): BasicCredentials | undefined {
  if (dockerConfig === undefined) return undefined;
  const auths = parseConfig(dockerConfig).auths ?? {};
  const host = registry.toLowerCase();
  const key = Object.keys(auths).find((k) => hostOfKey(k) === host);
  const entry = key === undefined ? undefined : auths[key];
  return entry ? fromEntry(entry, registry) : undefined;
}

export function basicAuthorization(credentials: BasicCredentials): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
}

export interface BearerChallenge {
  readonly realm: string;
  readonly service?: string;
  readonly scope?: string;
}

/** Reads `Bearer realm="…",service="…",scope="…"`; undefined for any other scheme (Basic, say). */
export function bearerChallenge(header: string | null): BearerChallenge | undefined {
  if (header === null || !/^bearer\s/i.test(header)) return undefined;
  const params = new Map<string, string>();
  for (const m of header.matchAll(/([a-zA-Z]+)="([^"]*)"/g)) {
    if (m[1] !== undefined && m[2] !== undefined) params.set(m[1].toLowerCase(), m[2]);
  }
  const realm = params.get('realm');
  if (!realm) return undefined;
  const service = params.get('service');
  const scope = params.get('scope');
  return { realm, ...(service === undefined ? {} : { service }), ...(scope === undefined ? {} : { scope }) };
}

// Asks an OCI registry whether a chart version exists, as Argo CD's repo-server does before it
// renders anything: GET the manifest with Basic credentials, or with a bearer token when the
// registry's challenge asks for one. Only the answer is used; nothing is downloaded or rendered.
import type { RepoCreds } from './repoCreds.ts';

const ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

export interface ManifestRef {
  readonly repoURL: string;
  readonly chart: string;
  readonly version: string;
}

function manifestUrl(ref: ManifestRef, plainHttp: boolean): string {
  const [host, ...prefix] = ref.repoURL.replace(/^oci:\/\//, '').replace(/\/+$/, '').split('/');
  const repo = [...prefix, ref.chart].filter(Boolean).join('/');
  return `${plainHttp ? 'http' : 'https'}://${host}/v2/${repo}/manifests/${encodeURIComponent(ref.version)}`;
}

/** The manifest's answer, after a bearer token when the registry's challenge asks for one. */
async function answer(url: string, creds: RepoCreds, timeoutMs: number): Promise<Response> {
  const basic = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
  const res = await get(url, basic, timeoutMs);
  const challenge = res.headers.get('www-authenticate') ?? '';
  if (res.status !== 401 || !/^bearer /i.test(challenge)) return res;
  const token = await bearerToken(challenge, basic, timeoutMs);
  return token ? get(url, `Bearer ${token}`, timeoutMs) : res;
}

/** undefined when the manifest exists; otherwise why not, in words naming what was asked for. */
export async function chartProblem(ref: ManifestRef, creds: RepoCreds, timeoutMs = 5000): Promise<string | undefined> {
  const url = manifestUrl(ref, creds.plainHttp);
  const what = `failed to get chart ${ref.chart} version ${ref.version} from ${ref.repoURL}: GET ${url}`;
  try {
    const res = await answer(url, creds, timeoutMs);
    if (res.ok) return undefined;
    const body = (await res.text()).slice(0, 300).trim();
    return `${what}: ${res.status} ${res.statusText}${body ? `: ${body}` : ''}`;
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return `${what}: ${cause?.code ?? cause?.message ?? (err as Error).message}`;
  }
}

function get(url: string, authorization: string, timeoutMs: number): Promise<Response> {
  return fetch(url, { headers: { accept: ACCEPT, authorization }, signal: AbortSignal.timeout(timeoutMs) });
}

/** A token from the challenge's realm, asked for with the Basic credentials. */
async function bearerToken(challenge: string, basic: string, timeoutMs: number): Promise<string | undefined> {
  const params = new Map([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
  const realm = params.get('realm');
  if (!realm) return undefined;
  const url = new URL(realm);
  for (const key of ['service', 'scope']) {
    const value = params.get(key);
    if (value) url.searchParams.set(key, value);
  }
  const res = await get(url.toString(), basic, timeoutMs);
  if (!res.ok) return undefined;
  const body = (await res.json()) as { token?: string; access_token?: string };
  return body.token ?? body.access_token;
}

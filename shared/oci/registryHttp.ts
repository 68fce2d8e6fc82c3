// GETs against one repository of an OCI registry (the distribution API's /v2/ paths), with
// its authentication and with each HTTP answer turned into the error class that says what
// happens next: refused (a person fixes credentials), unavailable (retried), unreadable.
// Each request has the Kubernetes client's connect timeout and a total timeout cut short near
// the invocation's deadline, so a registry whose packets are dropped is a RegistryUnavailableError
// naming it, retried by the step, never a silent Lambda timeout.
import { BundleUnreadableError, RegistryRefusedError, RegistryUnavailableError } from '../errors.ts';
import { type HttpFetch, type HttpInit, httpFetch, requestSignal, timeoutFailure } from '../httpFetch.ts';
import { CONNECT_TIMEOUT_MS } from '../kube/rest.ts';
import { type BasicCredentials, type BearerChallenge, basicAuthorization, bearerChallenge } from './credentials.ts';
import { type OciReference, formatReference } from './reference.ts';

/**
 * A registry request's whole exchange (redirects and body included) ends within this, or sooner
 * near the invocation's deadline: long enough for a chart or bundle layer, which is a few MiB.
 */
export const REGISTRY_REQUEST_TIMEOUT_MS = 30_000;

/** The fetch registry sessions use unless a test gives its own. */
export const registryFetch: HttpFetch = httpFetch(CONNECT_TIMEOUT_MS);

export interface RegistrySessionOptions {
  readonly credentials?: BasicCredentials;
  /** Speak http instead of https (a registry on loopback, as in the test environment). */
  readonly plainHTTP: boolean;
  readonly fetch: HttpFetch;
  /** Each request's total timeout, before the deadline shortens it. */
  readonly timeoutMs: number;
}

export interface RegistrySession {
  readonly ref: OciReference;
  readonly options: RegistrySessionOptions;
  /**
   * What the next request sends: Basic at first when there are credentials, a Bearer token once the
   * registry asked for one.
   */
  authorization?: string;
}

export function openSession(ref: OciReference, options: RegistrySessionOptions): RegistrySession {
  const session: RegistrySession = { ref, options };
  if (options.credentials) session.authorization = basicAuthorization(options.credentials);
  return session;
}

function unavailable(session: RegistrySession, what: string, detail: string): RegistryUnavailableError {
  return new RegistryUnavailableError(
    `registry ${session.ref.registry} ${detail} (${what} of ${formatReference(session.ref)}); retrying`,
  );
}

/**
 * Which timeout ended the request, or the system's error code (ECONNREFUSED, ENOTFOUND…) or the
 * error's name; never a message a server wrote.
 */
function failureCode(err: unknown): string {
  const timeout = timeoutFailure(err);
  if (timeout !== undefined) return timeout;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error && 'code' in cause && typeof cause.code === 'string') return cause.code;
  if (err instanceof Error && 'code' in err && typeof err.code === 'string' && /^[A-Z0-9_]{3,40}$/.test(err.code))
    return err.code;
  return err instanceof Error ? err.name : 'unknown failure';
}

export interface RegistryRequest {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** Under /v2/<repository>/, or a whole URL (an upload's Location). */
  readonly path: string;
  readonly accept?: string;
  readonly contentType?: string;
  readonly body?: Uint8Array;
  /** Answers that are not failures for this request (404 to a HEAD that asks whether a blob is there). */
  readonly expected?: readonly number[];
}

async function send(
  session: RegistrySession,
  url: string,
  req: Omit<RegistryRequest, 'path'>,
  what: string,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (req.accept !== undefined) headers['accept'] = req.accept;
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  if (session.authorization !== undefined) headers['authorization'] = session.authorization;
  const signal = requestSignal(session.options.timeoutMs, 'a registry request');
  try {
    // A blob may redirect to object storage; fetch drops the authorization header when the redirect
    // leaves the registry's origin.
    const init: HttpInit = { method: req.method, headers, redirect: 'follow', signal };
    return await session.options.fetch(url, req.body === undefined ? init : { ...init, body: req.body });
  } catch (err) {
    throw unavailable(session, what, `did not answer: ${failureCode(err)}`);
  }
}

/** The error an unsuccessful answer stands for; undefined for a success. */
function statusError(session: RegistrySession, status: number, what: string): Error | undefined {
  if (status >= 200 && status < 300) return undefined;
  const { ref } = session;
  if (status === 401 || status === 403) return new RegistryRefusedError(status, ref.registry, ref.repository);
  if (status === 429) return unavailable(session, what, 'is throttling requests (http 429)');
  if (status >= 500) return unavailable(session, what, `failed (http ${status})`);
  if (status === 404)
    return new BundleUnreadableError(
      formatReference(ref),
      `the registry has no such ${what} (http 404): check that AICR pushed it and that it was not deleted`,
    );
  return new BundleUnreadableError(formatReference(ref), `the registry answered http ${status} to the ${what} request`);
}

async function fail(
  session: RegistrySession,
  res: Response,
  what: string,
  expected: readonly number[] = [],
): Promise<Response> {
  const err = expected.includes(res.status) ? undefined : statusError(session, res.status, what);
  if (err === undefined) return res;
  await res.body?.cancel();
  throw err;
}

function tokenURL(session: RegistrySession, challenge: BearerChallenge): string {
  const url = new URL(challenge.realm);
  if (challenge.service !== undefined) url.searchParams.set('service', challenge.service);
  url.searchParams.set('scope', challenge.scope ?? `repository:${session.ref.repository}:pull`);
  return url.toString();
}

/** Trades the credentials (or nothing, for anonymous pulls) for a Bearer token, as the challenge asks. */
async function bearerToken(session: RegistrySession, challenge: BearerChallenge): Promise<string> {
  const { credentials } = session.options;
  const basic = credentials ? basicAuthorization(credentials) : undefined;
  const tokenSession: RegistrySession = {
    ref: session.ref,
    options: session.options,
    ...(basic === undefined ? {} : { authorization: basic }),
  };
  const res = await fail(
    session,
    await send(tokenSession, tokenURL(session, challenge), { method: 'GET', accept: 'application/json' }, 'token'),
    'token',
  );
  const body = (await res.json().catch(() => undefined)) as { token?: unknown; access_token?: unknown } | undefined;
  const token = body?.token ?? body?.access_token;
  if (typeof token !== 'string' || token === '')
    throw unavailable(session, 'token', 'answered the token request without a token');
  return token;
}

/**
 * Sends one request to `/v2/<repository>/<path>`. A 401 with a Bearer challenge is answered once
 * with a token (kept for the session's later requests); any other unsuccessful answer, unless
 * expected, is thrown as its class.
 */
export async function registryRequest(session: RegistrySession, req: RegistryRequest, what: string): Promise<Response> {
  const scheme = session.options.plainHTTP ? 'http' : 'https';
  const base = `${scheme}://${session.ref.registry}/v2/${session.ref.repository}/`;
  const url = /^https?:\/\//.test(req.path) ? req.path : new URL(req.path, base).toString();
  const first = await send(session, url, req, what);
  const challenge = first.status === 401 ? bearerChallenge(first.headers.get('www-authenticate')) : undefined;
  if (challenge === undefined || session.authorization?.startsWith('Bearer '))
    return fail(session, first, what, req.expected);
  await first.body?.cancel();
  session.authorization = `Bearer ${await bearerToken(session, challenge)}`;
  return fail(session, await send(session, url, req, what), what, req.expected);
}

export function registryGet(session: RegistrySession, path: string, what: string, accept?: string): Promise<Response> {
  return registryRequest(session, { method: 'GET', path, ...(accept === undefined ? {} : { accept }) }, what);
}

const MIB = 1024 * 1024;

/** A size limit as people state it: whole MiB when it is some, bytes otherwise. */
export function sizeText(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

function overLimit(session: RegistrySession, what: string, limit: number): BundleUnreadableError {
  return new BundleUnreadableError(
    formatReference(session.ref),
    `the ${what} is larger than the ${sizeText(limit)} the control plane reads`,
  );
}

/** Reads a body whole, but never more than `limit` bytes: a registry cannot make the Lambda hold more. */
export async function readLimited(
  session: RegistrySession,
  res: Response,
  what: string,
  limit: number,
): Promise<Uint8Array> {
  if (Number(res.headers.get('content-length') ?? 0) > limit) {
    await res.body?.cancel();
    throw overLimit(session, what, limit);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of res.body ?? []) {
      total += chunk.byteLength;
      if (total > limit) break;
      chunks.push(chunk);
    }
  } catch (err) {
    throw unavailable(session, what, `broke off the ${what}: ${failureCode(err)}`);
  }
  if (total > limit) throw overLimit(session, what, limit);
  return Buffer.concat(chunks);
}

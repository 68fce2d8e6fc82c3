// The fetch the control plane's own HTTP requests go through (OCI registries, chart repositories,
// the EKS API), over node:http(s) rather than the built-in fetch, because that one gives a caller
// no connect timeout (undici's is fixed at 10 s): a peer whose packets are dropped must fail fast
// and read differently from one that takes the connection and never answers. The total timeout
// is the caller's signal, made by `requestSignal` so that it also ends before the invocation's
// deadline, leaving time to hand the work to a retry instead of dying as a Lambda timeout.
import type * as Http from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { Readable, type Transform, pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { requestBudgetMs } from './deadline.ts';
import { DeadlineError } from './errors.ts';

// Imported as an ES module, node:http has every export evaluated, WebSocket among them, which
// loads Node's own fetch implementation: tens of milliseconds of every function's cold start,
// for nothing used here. Required, it is not.
const { Agent: HttpAgent, request: httpRequest } = createRequire(import.meta.url)('node:http') as typeof Http;

export interface HttpInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  readonly signal?: AbortSignal;
  /** Redirects are always followed, as fetch does by default; accepted so one init serves both. */
  readonly redirect?: 'follow';
}

/** What the control plane asks of a fetch; the built-in fetch is one too, which tests inject. */
export type HttpFetch = (url: string, init: HttpInit) => Promise<Response>;

/** A request ended by one of its timeouts; `failure` says which, in words safe to log. */
export class NetworkTimeoutError extends Error {
  readonly failure: string;
  constructor(failure: string) {
    super(failure);
    this.failure = failure;
    this.name = 'NetworkTimeoutError';
  }
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;

/**
 * The signal that ends one request (its redirects and body included) within `limitMs`, or sooner
 * so that it ends before the invocation's reserve. Throws DeadlineError when too little is left
 * to start it: the work is then handed to a retry at once.
 */
export function requestSignal(limitMs: number, what: string): AbortSignal {
  const ms = requestBudgetMs(limitMs);
  if (ms <= 0) throw new DeadlineError(`too little time left in this invocation for ${what}; handed to a retry`);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new NetworkTimeoutError(`no answer within ${seconds(ms)} s`)), ms).unref();
  return controller.signal;
}

/** The timeout that ended a request, as words, whichever fetch made it; undefined for other failures. */
export function timeoutFailure(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof NetworkTimeoutError) return e.failure;
    // The built-in fetch's own connect timeout, when a test's fetch stands in.
    if ((e as { code?: unknown }).code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timed out';
  }
  return undefined;
}

/** Destroys the request if its connection (TLS included) is not made within `ms`. */
function limitConnect(req: ClientRequest, secure: boolean, ms: number): void {
  req.once('socket', (socket: Socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(() => req.destroy(new NetworkTimeoutError(`connect timed out after ${ms / 1000} s`)), ms);
    socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}

// No kept-alive connections: a socket idle across a frozen Lambda invocation is often reset by the
// peer when next used, which would read as an outage; a few more handshakes cost less. And every
// request then makes its connection, so the connect timeout always applies.
const AGENTS = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };

interface Hop {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array | undefined;
}

/** One request and its response's head; the signal, when it aborts, ends the response's body too. */
function exchange(hop: Hop, signal: AbortSignal | undefined, connectMs: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const secure = hop.url.protocol === 'https:';
    let response: IncomingMessage | undefined;
    const options = { method: hop.method, headers: hop.headers };
    const onResponse = (res: IncomingMessage): void => resolve((response = res));
    const req = secure
      ? httpsRequest(hop.url, { ...options, agent: AGENTS.https }, onResponse)
      : httpRequest(hop.url, { ...options, agent: AGENTS.http }, onResponse);
    limitConnect(req, secure, connectMs);
    // Kept for the whole exchange: a body broken off later is reported through the response.
    req.on('error', reject);
    if (signal) {
      const abort = (): void =>
        void (response ?? req).destroy(
          signal.reason instanceof Error ? signal.reason : new NetworkTimeoutError('aborted'),
        );
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      req.once('close', () => signal.removeEventListener('abort', abort));
    }
    req.end(hop.body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;
/** Statuses whose response has no body, for which a Response may not be given one. */
const NULL_BODY = new Set([204, 205, 304]);

/** The request a redirect asks for: fetch's rules, credentials dropped when it leaves the origin. */
function redirected(hop: Hop, status: number, location: string): Hop {
  const url = new URL(location, hop.url);
  const headers = { ...hop.headers };
  if (url.origin !== hop.url.origin) delete headers['authorization'];
  const asGet = status === 303 ? hop.method !== 'HEAD' : (status === 301 || status === 302) && hop.method === 'POST';
  if (!asGet) return { ...hop, url, headers };
  delete headers['content-type'];
  return { url, method: 'GET', headers, body: undefined };
}

/**
 * Nothing asks for a compressed answer, but a server may send one anyway (a chart index stored
 * gzipped on S3): decoded, as the built-in fetch would. A broken-off answer still errors the body.
 */
const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

function decoded(res: IncomingMessage): Readable {
  const decoder =
    DECODERS[
      String(res.headers['content-encoding'] ?? '')
        .trim()
        .toLowerCase()
    ];
  return decoder === undefined ? res : pipeline(res, decoder(), () => undefined);
}

function toResponse(res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of [value ?? []].flat()) headers.append(name, v);
  const status = res.statusCode ?? 0;
  if (method === 'HEAD' || NULL_BODY.has(status)) {
    res.resume();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(decoded(res)) as ReadableStream<Uint8Array>, { status, headers });
}

/** Lower-cased header names, so that a redirect finds the authorization header whatever its spelling. */
function normalHeaders(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = { accept: '*/*', 'user-agent': 'aicr-control-plane' };
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** A fetch whose connections are made within `connectTimeoutMs` or fail with NetworkTimeoutError. */
export function httpFetch(connectTimeoutMs: number): HttpFetch {
  return async (url, init) => {
    let hop: Hop = {
      url: new URL(url),
      method: init.method ?? 'GET',
      headers: normalHeaders(init.headers),
      body: init.body,
    };
    for (let hops = 0; ; hops++) {
      const res = await exchange(hop, init.signal, connectTimeoutMs);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (!REDIRECTS.has(status) || location === undefined) return toResponse(res, hop.method);
      res.resume();
      if (hops === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      hop = redirected(hop, status, location);
    }
  };
}

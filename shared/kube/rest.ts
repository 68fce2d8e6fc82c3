// A lean HTTPS client for the Kubernetes API: JSON requests, streamed watches, bearer tokens
// refreshed on demand or client certificates. It replaces the generated client, whose size
// was most of every function's bundle; the API surface the control plane uses is small.
// Every request has a connect and a total timeout, cut shorter near the invocation's deadline,
// so an API server that cannot be reached is a KubeUnreachableError naming the likely causes,
// never a silent Lambda timeout.
import { Agent, request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { requestBudgetMs } from '../deadline.ts';
import { DeadlineError, KubeUnreachableError } from '../errors.ts';

/** The TCP connection and TLS handshake finish within this, or the server counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** A request's whole exchange ends within this; a watch's, until its response starts. */
export const REQUEST_TIMEOUT_MS = 20_000;

/** Node's network error codes are fixed identifiers, safe to name; anything else is not echoed. */
const NETWORK_FAILURE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'name not resolved',
  EAI_AGAIN: 'name not resolved',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'no route to host',
  ETIMEDOUT: 'connect timed out',
};

class NetworkTimeout extends Error {
  readonly failure: string;
  constructor(failure: string) {
    super(failure);
    this.failure = failure;
  }
}

function failureOf(err: unknown): string {
  if (err instanceof NetworkTimeout) return err.failure;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return 'network error';
  return NETWORK_FAILURE[code] ?? (/^[A-Z0-9_]{3,40}$/.test(code) ? `network error ${code}` : 'network error');
}

/** Destroys the request if its socket has not connected (TLS included) within CONNECT_TIMEOUT_MS. */
function limitConnect(req: ClientRequest): void {
  req.once('socket', (socket: Socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(
      () => req.destroy(new NetworkTimeout(`connect timed out after ${CONNECT_TIMEOUT_MS / 1000} s`)),
      CONNECT_TIMEOUT_MS,
    );
    socket.once('secureConnect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}

export interface TlsMaterial {
  /** PEM of the cluster's certificate authority. */
  readonly ca?: string;
  /** PEM client certificate and key, when the identity is a certificate. */
  readonly cert?: string;
  readonly key?: string;
  readonly insecure?: boolean;
}

export interface Connection {
  readonly server: string;
  readonly tls: TlsMaterial;
  /** A bearer token; `refresh` asks for a new one after the server answered 401. */
  readonly token?: (refresh: boolean) => Promise<string>;
  /** Who the requests run as, for error messages. */
  readonly name: string;
  /** The full identity, which may cost a request (EKS asks STS); used only when the server refused it. */
  readonly identity: () => Promise<string>;
  /**
   * Act as this user and groups (Kubernetes impersonation): how tests and local mode run a step as
   * its own identity.
   */
  readonly impersonate?: { readonly user: string; readonly groups: readonly string[] };
}

/** A non-2xx answer: the status code and the server's Status body, for errors.ts to classify. */
export class HttpStatusError extends Error {
  readonly code: number;
  readonly body: unknown;
  constructor(code: number, body: unknown) {
    super(`http ${code}`);
    this.code = code;
    this.body = body;
    this.name = 'HttpStatusError';
  }
}

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
}

function parseJson(text: string): unknown {
  try {
    return text.length > 0 ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return text;
  }
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

export class RestClient {
  private readonly conn: Connection;
  private readonly agent: Agent;

  constructor(conn: Connection) {
    this.conn = conn;
    const { ca, cert, key, insecure } = conn.tls;
    this.agent = new Agent({
      keepAlive: true,
      ...(ca ? { ca } : {}),
      ...(cert ? { cert } : {}),
      ...(key ? { key } : {}),
      rejectUnauthorized: !insecure,
    });
  }

  get name(): string {
    return this.conn.name;
  }

  identity(): Promise<string> {
    return this.conn.identity();
  }

  private url(path: string, query: RequestOptions['query']): URL {
    const url = new URL(path, this.conn.server);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  private async open(
    method: string,
    path: string,
    opts: RequestOptions,
    how: { readonly refresh: boolean; readonly limit: RequestLimit },
  ): Promise<IncomingMessage> {
    const { refresh, limit } = how;
    const headers: Record<string, string | string[]> = { Accept: 'application/json' };
    if (this.conn.impersonate) {
      headers['Impersonate-User'] = this.conn.impersonate.user;
      headers['Impersonate-Group'] = [...this.conn.impersonate.groups];
    }
    if (this.conn.token) headers['Authorization'] = `Bearer ${await this.conn.token(refresh)}`;
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    if (payload !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      // Said outright: for a DELETE, node sends a body without a length, and the server then reads
      // it as the start of the next request on the kept-alive connection (400 Bad Request).
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    return await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        this.url(path, opts.query),
        { method, headers, agent: this.agent, ...(opts.signal ? { signal: opts.signal } : {}) },
        resolve,
      );
      limitConnect(req);
      limit.attach(req);
      req.on('error', (err) =>
        reject(opts.signal?.aborted ? err : new KubeUnreachableError(this.host, failureOf(err))),
      );
      req.end(payload);
    });
  }

  private get host(): string {
    return new URL(this.conn.server).host;
  }

  /** The time a request may take, or a DeadlineError when the invocation has too little left to start it. */
  private limit(wholeExchange: boolean): RequestLimit {
    const ms = requestBudgetMs(REQUEST_TIMEOUT_MS);
    if (ms <= 0)
      throw new DeadlineError('too little time left in this invocation for a kubernetes request; handed to a retry');
    return new RequestLimit(ms, wholeExchange);
  }

  /** Opens a request, asking for a fresh token once when the server answers 401. */
  private async openWithRetry(
    method: string,
    path: string,
    opts: RequestOptions,
    limit: RequestLimit,
  ): Promise<IncomingMessage> {
    const res = await this.open(method, path, opts, { refresh: false, limit });
    if (res.statusCode !== 401 || !this.conn.token) return res;
    res.resume();
    return await this.open(method, path, opts, { refresh: true, limit });
  }

  /** One JSON request; a non-2xx answer rejects with HttpStatusError. */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<unknown> {
    const limit = this.limit(true);
    try {
      const res = await this.openWithRetry(method, path, opts, limit);
      const text = await readAll(res).catch((err: unknown) => {
        throw opts.signal?.aborted ? err : new KubeUnreachableError(this.host, failureOf(limit.timedOut ?? err));
      });
      const body = parseJson(text);
      const code = res.statusCode ?? 0;
      if (code < 200 || code >= 300) throw new HttpStatusError(code, body);
      return body;
    } finally {
      limit.clear();
    }
  }

  /**
   * A watch: each line of the response is one event. Resolves when the server ends the stream
   * or the signal aborts it; rejects with HttpStatusError when the watch cannot start.
   */
  async stream(path: string, opts: RequestOptions, onLine: (value: unknown) => void): Promise<void> {
    const limit = this.limit(false);
    const res = await this.openWithRetry('GET', path, opts, limit).finally(() => limit.clear());
    const code = res.statusCode ?? 0;
    if (code < 200 || code >= 300) throw new HttpStatusError(code, parseJson(await readAll(res)));
    await new Promise<void>((resolve, reject) => {
      let rest = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        rest += chunk;
        let nl = rest.indexOf('\n');
        while (nl >= 0) {
          const line = rest.slice(0, nl).trim();
          rest = rest.slice(nl + 1);
          if (line.length > 0) onLine(parseJson(line));
          nl = rest.indexOf('\n');
        }
      });
      res.on('end', resolve);
      res.on('close', resolve);
      res.on('error', (err) => (opts.signal?.aborted ? resolve() : reject(err)));
    });
  }
}

/**
 * The total timeout of one request, across its retry after a 401: it destroys the request once
 * the time is up. For a watch it stands only until the response starts (`wholeExchange` false);
 * the watch then runs for the timeoutSeconds it asked the server for.
 */
class RequestLimit {
  readonly ms: number;
  private readonly wholeExchange: boolean;
  private readonly requests: ClientRequest[] = [];
  private readonly timer: NodeJS.Timeout;
  timedOut: NetworkTimeout | undefined;

  constructor(ms: number, wholeExchange: boolean) {
    this.ms = ms;
    this.wholeExchange = wholeExchange;
    this.timer = setTimeout(() => {
      this.timedOut = new NetworkTimeout(`no answer within ${Math.round(ms / 100) / 10} s`);
      for (const r of this.requests) r.destroy(this.timedOut);
    }, ms);
  }

  attach(req: ClientRequest): void {
    this.requests.push(req);
    if (!this.wholeExchange) req.once('response', () => this.clear());
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

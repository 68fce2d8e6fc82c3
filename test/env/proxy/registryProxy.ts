// STAND-IN: a loopback proxy in front of the test environment's OCI registry. It is not part of
// the registry or of AICR; it exists so that tests can see a registry refuse a push or a pull
// for a policy reason (403), which the registry itself cannot be made to do. Every request is
// passed through as it came, bodies streamed both ways (chunked blob uploads included), and
// the registry's Location headers are pointed back at the proxy so a client stays on it.
// While the denial knob's file exists, requests in its scope that the registry authenticates
// are answered 403 DENIED instead; those without credentials, or with credentials it does not
// accept, still reach the registry and get its own 401, as from a registry that authenticates
// first and then refuses. Each write it passes on (a push's POST, PUT or PATCH, a DELETE) is
// recorded in the audit file, one JSON line each, so tests can count what was pushed.
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  Agent,
  createServer,
  request,
} from 'node:http';
import { appendFile, readFile } from 'node:fs/promises';
import { RegistryDenial } from '../knobFiles.ts';

export interface ProxyOptions {
  /** host:port of the registry. */
  readonly upstream: string;
  /** The denial knob's control file. */
  readonly denialFile: string;
  /** Where the writes passed on to the registry are recorded, when given. */
  readonly auditFile?: string;
}

/** One line of the audit file. */
export interface ProxyWrite {
  readonly method: string;
  readonly path: string;
}

async function audit(req: IncomingMessage, file: string | undefined): Promise<void> {
  if (file === undefined || req.method === 'GET' || req.method === 'HEAD') return;
  const line: ProxyWrite = { method: req.method ?? '', path: new URL(req.url ?? '/', 'http://proxy').pathname };
  await appendFile(file, `${JSON.stringify(line)}\n`);
}

// Connection-level headers are the proxy's own on each side, never forwarded.
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
];

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.includes(name)));
}

async function denialInForce(file: string): Promise<RegistryDenial | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = RegistryDenial.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a denying registry refuses this request. The version check (/v2/) is never refused. */
export function refuses(
  denial: RegistryDenial | undefined,
  req: { method?: string | undefined; url?: string | undefined; headers: IncomingHttpHeaders },
): boolean {
  if (!denial || !req.headers.authorization) return false;
  const path = new URL(req.url ?? '/', 'http://proxy').pathname;
  if (path === '/v2/' || path === '/v2') return false;
  const read = req.method === 'GET' || req.method === 'HEAD';
  return denial.scope === 'all' || (denial.scope === 'pull') === read;
}

function deny(req: IncomingMessage, res: ServerResponse, denial: RegistryDenial): void {
  req.resume();
  const body = JSON.stringify({ errors: [{ code: 'DENIED', message: denial.message }] });
  res.writeHead(403, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'docker-distribution-api-version': 'registry/2.0',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A Location on the registry's own address, made to point at the address the client used. */
export function onProxy(location: string, upstream: string, clientHost: string): string {
  const prefix = `http://${upstream}/`;
  return location.startsWith(prefix) ? `http://${clientHost}/${location.slice(prefix.length)}` : location;
}

/** Whether the registry accepts the request's credentials (asked with its version check). */
function authenticated(req: IncomingMessage, opts: ProxyOptions, agent: Agent): Promise<boolean> {
  const [hostname, port] = opts.upstream.split(':');
  return new Promise((resolve) => {
    const check = request(
      {
        agent,
        hostname,
        port: Number(port),
        path: '/v2/',
        headers: { authorization: req.headers.authorization ?? '' },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      },
    );
    check.on('error', () => resolve(false));
    check.end();
  });
}

function forward(req: IncomingMessage, res: ServerResponse, opts: ProxyOptions, agent: Agent): void {
  const [hostname, port] = opts.upstream.split(':');
  const clientHost = req.headers.host ?? '';
  const upstreamReq = request(
    {
      agent,
      hostname,
      port: Number(port),
      method: req.method,
      path: req.url,
      headers: { ...forwardable(req.headers), host: opts.upstream },
    },
    (upstreamRes) => {
      const headers = forwardable(upstreamRes.headers);
      if (typeof headers.location === 'string') headers.location = onProxy(headers.location, opts.upstream, clientHost);
      res.writeHead(upstreamRes.statusCode ?? 502, headers);
      upstreamRes.pipe(res);
    },
  );
  upstreamReq.on('error', (err) => {
    if (res.headersSent) return void res.destroy(err);
    res
      .writeHead(502, { 'content-type': 'text/plain' })
      .end(`registry proxy (test stand-in): the registry at ${opts.upstream} did not answer: ${err.message}\n`);
  });
  req.pipe(upstreamReq);
}

export function registryProxy(opts: ProxyOptions): Server {
  const agent = new Agent({ keepAlive: true });
  return createServer((req, res) => {
    void denialInForce(opts.denialFile).then(async (denial) => {
      if (denial && refuses(denial, req) && (await authenticated(req, opts, agent))) return deny(req, res, denial);
      await audit(req, opts.auditFile);
      forward(req, res, opts, agent);
    });
  });
}

// The kubelet's log endpoint, so `kubectl logs` works through the API server: HTTPS on the
// Nodes' kubelet port, mutual TLS with the API server (it presents a client certificate signed
// by the environment's CA). Serves /containerLogs/{namespace}/{pod}/{container} with
// tailLines and follow; output is not timestamped, so `timestamps` is ignored.
import { createServer, type Server } from 'node:https';
import { open, readFile, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';

export interface LogSource {
  /** The Pod's UID, if the node knows the Pod. */
  uidOf(namespace: string, name: string): string | undefined;
  /** Whether a container of the Pod may still write output. */
  isRunning(uid: string): boolean;
}

export interface LogServerOptions {
  readonly port: number;
  readonly pki: string;
  readonly stateDir: string;
  readonly source: LogSource;
}

const FOLLOW_POLL_MS = 200;

export async function startLogServer(opts: LogServerOptions): Promise<Server> {
  const [cert, key, ca] = await Promise.all(
    ['serving.crt', 'serving.key', 'ca.crt'].map((f) => readFile(join(opts.pki, f))),
  );
  const server = createServer({ cert, key, ca, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://node');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const uid = m ? opts.source.uidOf(decodeURIComponent(m[1] ?? ''), decodeURIComponent(m[2] ?? '')) : undefined;
    if (!m || !uid) return void res.writeHead(404).end('not found\n');
    const file = join(opts.stateDir, 'pods', uid, 'logs', `${decodeURIComponent(m[3] ?? '')}.log`);
    const tail = url.searchParams.get('tailLines');
    void serve(
      res,
      file,
      tail === null ? undefined : Number(tail),
      url.searchParams.get('follow') === 'true' ? () => opts.source.isRunning(uid) : undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(opts.port, '127.0.0.1', resolve));
  return server;
}

async function serve(
  res: ServerResponse,
  file: string,
  tailLines: number | undefined,
  following: (() => boolean) | undefined,
): Promise<void> {
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch {
    return void res.writeHead(404).end('container log not found\n');
  }
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  const lines = content.toString().split('\n');
  res.write(tailLines !== undefined && lines.length - 1 > tailLines ? lines.slice(-tailLines - 1).join('\n') : content);
  let offset = content.length;
  while (following?.() && !res.destroyed) {
    await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
    offset = await copyNew(res, file, offset);
  }
  if (following) await copyNew(res, file, offset);
  res.end();
}

async function copyNew(res: ServerResponse, file: string, offset: number): Promise<number> {
  const size = await stat(file).then(
    (s) => s.size,
    () => offset,
  );
  if (size <= offset) return offset;
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size - offset);
    await handle.read(buf, 0, buf.length, offset);
    res.write(buf);
  } finally {
    await handle.close();
  }
  return size;
}

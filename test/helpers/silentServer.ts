// A TCP server on loopback that takes every connection and never answers: a path dropped past
// the first hop, or a TLS handshake that never completes. Timeout tests aim their requests at it.
import { createServer, type Socket } from 'node:net';

export interface SilentServer {
  readonly port: number;
  /** 127.0.0.1:<port> */
  readonly host: string;
  /** Connections taken so far. */
  connections(): number;
  /** Drops every connection it holds and stops listening. */
  close(): void;
}

export async function silentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let taken = 0;
  const server = createServer((s) => {
    taken++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    host: `127.0.0.1:${port}`,
    connections: () => taken,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

// Runs the registry proxy (a labelled stand-in, see registryProxy.ts) on loopback; up.sh
// starts it and records its PID, down.sh stops it.
import { parseArgs } from 'node:util';
import { registryProxy } from './registryProxy.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    upstream: { type: 'string' },
    'denial-file': { type: 'string' },
    'audit-file': { type: 'string' },
  },
});
if (!values.port || !values.upstream || !values['denial-file']) {
  console.error('usage: main.ts --port <port> --upstream <host:port> --denial-file <path> [--audit-file <path>]');
  process.exit(2);
}
const { upstream, 'denial-file': denialFile, 'audit-file': auditFile } = values;
const server = registryProxy({ upstream, denialFile, ...(auditFile ? { auditFile } : {}) });
server.listen(Number(values.port), '127.0.0.1', () => {
  console.error(
    `[registry-proxy] STAND-IN, not a registry: forwards 127.0.0.1:${values.port} to the OCI registry at ${upstream}, ` +
      `and answers 403 DENIED while the test knob ${denialFile} exists`,
  );
});
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

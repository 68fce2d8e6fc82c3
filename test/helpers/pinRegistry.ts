// A stand-in registry for the rollout step's unit tests: it answers the step's chart-pin check
// (SEC-5) for any chart and version with the digest chartDigest gives, as a registry answers with
// Docker-Content-Digest, so releases pinned with chartDigest hold. The integration tests check
// pins against the real test registry.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

/** The manifest digest this registry holds for `chart` at `version`. */
export const chartDigest = (chart: string, version: string): string =>
  `sha256:${createHash('sha256').update(`${chart}:${version}`).digest('hex')}`;

const MANIFEST = /^\/v2\/.+\/([^/]+)\/manifests\/([^/]+)$/;

const server = createServer((req, res) => {
  const m = MANIFEST.exec(req.url ?? '');
  if (!m) {
    res.writeHead(req.url === '/v2/' ? 200 : 404).end();
    return;
  }
  res
    .writeHead(200, {
      'content-type': 'application/vnd.oci.image.manifest.v1+json',
      'docker-content-digest': chartDigest(decodeURIComponent(m[1] ?? ''), decodeURIComponent(m[2] ?? '')),
    })
    .end();
});
server.unref();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();

/** `127.0.0.1:<port>`: the registry's host, plain HTTP. */
export const PIN_REGISTRY = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

// What the real test registry cannot be made to do: serve bytes that do not match their
// digest, ask for a Bearer token, or send a blob to object storage elsewhere. A registry that
// lies or trades tokens is stood in for by the pull's `fetch` option, answering from a table;
// the redirect runs over real loopback HTTP with the real fetch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { BundleUnreadableError, RegistryRefusedError } from '../../shared/errors.ts';
import { pullArtifactFiles } from '../../shared/oci/pull.ts';
import { archive, entry } from '../helpers/tarFixture.ts';

const digestOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const LAYER = gzipSync(archive(entry({ name: './recipe.yaml', data: 'kind: RecipeResult\n' })));

function manifestFor(layer: Uint8Array, layerDigest = digestOf(layer)): Uint8Array {
  const layers = [
    { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layerDigest, size: layer.length },
  ];
  return new TextEncoder().encode(
    JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', layers }),
  );
}

type Answer = (headers: Headers) => Response;
interface Seen {
  readonly url: string;
  readonly authorization: string | null;
}

/** A fetch answering from `routes` by URL, recording what each request carried. */
function tableFetch(routes: Record<string, Answer>, seen: Seen[] = []): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    seen.push({ url, authorization: headers.get('authorization') });
    const answer = routes[url];
    return Promise.resolve(
      answer ? answer(headers) : new Response('{"errors":[{"code":"NAME_UNKNOWN"}]}', { status: 404 }),
    );
  };
}

const ok =
  (bytes: Uint8Array): Answer =>
  () =>
    new Response(bytes, { status: 200 });

test('a manifest that does not hash to the digest asked for is unreadable', async () => {
  const manifest = manifestFor(LAYER);
  const asked = `sha256:${'0'.repeat(64)}`;
  const fetch = tableFetch({ [`https://r.example/v2/a/b/manifests/${asked}`]: ok(manifest) });
  await assert.rejects(pullArtifactFiles(`r.example/a/b@${asked}`, { plainHTTP: false, fetch }), (err: unknown) => {
    assert.ok(err instanceof BundleUnreadableError);
    assert.match(
      err.message,
      new RegExp(
        `^bundle r\\.example/a/b@${asked}: the manifest the registry returned hashes to ${digestOf(manifest)}, not to the digest asked for$`,
      ),
    );
    return true;
  });
});

test('a layer that does not hash to its descriptor is unreadable; a matching one is unpacked', async () => {
  const claimed = digestOf(new TextEncoder().encode('something else'));
  const lying = tableFetch({
    'https://r.example/v2/a/b/manifests/v1': ok(manifestFor(LAYER, claimed)),
    [`https://r.example/v2/a/b/blobs/${claimed}`]: ok(LAYER),
  });
  await assert.rejects(
    pullArtifactFiles('r.example/a/b:v1', { plainHTTP: false, fetch: lying }),
    /the layer the registry returned hashes to sha256:[0-9a-f]{64}, not to sha256:[0-9a-f]{64} as the manifest says/,
  );

  const manifest = manifestFor(LAYER);
  const honest = tableFetch({
    [`https://r.example/v2/a/b/manifests/${digestOf(manifest)}`]: ok(manifest),
    [`https://r.example/v2/a/b/blobs/${digestOf(LAYER)}`]: ok(LAYER),
  });
  const files = await pullArtifactFiles(`r.example/a/b:v1@${digestOf(manifest)}`, { plainHTTP: false, fetch: honest });
  assert.deepEqual([...files.keys()], ['recipe.yaml'], 'the digest, not the tag, is what is pulled');
});

test('a Bearer challenge is answered with a token bought with the Basic credentials, then kept for the layer', async () => {
  const manifest = manifestFor(LAYER);
  const basic = `Basic ${Buffer.from('puller:secret').toString('base64')}`;
  const bearerOnly =
    (answer: Answer): Answer =>
    (headers) =>
      headers.get('authorization') === 'Bearer t0ken'
        ? answer(headers)
        : new Response('', {
            status: 401,
            headers: {
              'www-authenticate':
                'Bearer realm="https://auth.example/token",service="r.example",scope="repository:a/b:pull"',
            },
          });
  const seen: Seen[] = [];
  const fetch = tableFetch(
    {
      'https://r.example/v2/a/b/manifests/v1': bearerOnly(ok(manifest)),
      [`https://r.example/v2/a/b/blobs/${digestOf(LAYER)}`]: bearerOnly(ok(LAYER)),
      'https://auth.example/token?service=r.example&scope=repository%3Aa%2Fb%3Apull': (h) =>
        h.get('authorization') === basic ? Response.json({ token: 't0ken' }) : new Response('', { status: 401 }),
    },
    seen,
  );
  const dockerConfig = JSON.stringify({ auths: { 'r.example': { username: 'puller', password: 'secret' } } });
  const files = await pullArtifactFiles('r.example/a/b:v1', { plainHTTP: false, fetch, dockerConfig });
  assert.equal(new TextDecoder().decode(files.get('recipe.yaml')), 'kind: RecipeResult\n');
  assert.deepEqual(
    seen.map((s) => [new URL(s.url).pathname, s.authorization?.split(' ')[0]]),
    [
      ['/v2/a/b/manifests/v1', 'Basic'],
      ['/token', 'Basic'],
      ['/v2/a/b/manifests/v1', 'Bearer'],
      [`/v2/a/b/blobs/${digestOf(LAYER)}`, 'Bearer'],
    ],
  );

  const wrong = JSON.stringify({ auths: { 'r.example': { username: 'puller', password: 'nope' } } });
  await assert.rejects(
    pullArtifactFiles('r.example/a/b:v1', { plainHTTP: false, fetch, dockerConfig: wrong }),
    (err: unknown) => {
      assert.ok(err instanceof RegistryRefusedError);
      assert.deepEqual([err.status, err.registry, err.repository], [401, 'r.example', 'a/b']);
      assert.doesNotMatch(err.message, /nope|puller/);
      return true;
    },
  );
});

test('an image index, a manifest of several layers, or a layer of another media type is not a bundle', async () => {
  const cases: [object, RegExp][] = [
    [
      { schemaVersion: 2, mediaType: 'application/vnd.oci.image.index.v1+json', manifests: [] },
      /not an OCI image manifest with layers/,
    ],
    [
      { layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: digestOf(LAYER), size: 1 }] },
      /has 1 layers, 0 of them gzip tar/,
    ],
    [
      {
        layers: Array.from({ length: 2 }, () => ({
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: digestOf(LAYER),
          size: 1,
        })),
      },
      /has 2 layers, 2 of them gzip tar/,
    ],
  ];
  for (const [manifest, message] of cases) {
    const fetch = tableFetch({
      'https://r.example/v2/a/b/manifests/v1': ok(new TextEncoder().encode(JSON.stringify(manifest))),
    });
    await assert.rejects(
      pullArtifactFiles('r.example/a/b:v1', { plainHTTP: false, fetch }),
      (err: unknown) => err instanceof BundleUnreadableError && message.test(err.message),
    );
  }
});

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a layer redirected to storage on another origin is fetched there without the registry credentials', async () => {
  const manifest = manifestFor(LAYER);
  // Object storage refuses a request carrying a second authorization, as S3 does with a presigned URL.
  const storage = createServer((req, res) =>
    res.writeHead(req.headers.authorization ? 400 : 200).end(req.headers.authorization ? undefined : LAYER),
  );
  const storageHost = await listening(storage);
  const registry = createServer((req, res) => {
    if (req.headers.authorization !== `Basic ${Buffer.from('u:p').toString('base64')}`)
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
    if (req.url?.includes('/manifests/')) return void res.writeHead(200).end(manifest);
    res.writeHead(307, { location: `http://${storageHost}/bucket/blob?signature=abc` }).end();
  });
  const registryHost = await listening(registry);
  try {
    const dockerConfig = JSON.stringify({ auths: { [registryHost]: { username: 'u', password: 'p' } } });
    const files = await pullArtifactFiles(`${registryHost}/a/b:v1`, { plainHTTP: true, dockerConfig });
    assert.deepEqual([...files.keys()], ['recipe.yaml']);
  } finally {
    registry.close();
    storage.close();
  }
});

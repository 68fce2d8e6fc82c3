// The test environment's OCI registry is the real CNCF distribution (v3), on loopback with
// htpasswd (bcrypt) auth and its storage on tmpfs. These tests speak the OCI distribution
// API to it directly: an artifact pushed under a tag is pulled back by digest, and a client
// without the right credentials gets the registry's own 401.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testEnv, uniqueName } from '../helpers/env.ts';

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

function base(): string {
  return `http://${testEnv().TESTENV_REGISTRY}`;
}

function basicAuth(password = testEnv().TESTENV_REGISTRY_PASSWORD): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${testEnv().TESTENV_REGISTRY_USER}:${password}`).toString('base64')}` };
}

const digestOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A monolithic blob upload: POST for a session, then PUT the bytes with their digest. */
async function pushBlob(repo: string, bytes: Uint8Array): Promise<string> {
  const digest = digestOf(bytes);
  const start = await fetch(`${base()}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: basicAuth() });
  assert.equal(start.status, 202);
  const location = new URL(start.headers.get('location') ?? '', base());
  location.searchParams.set('digest', digest);
  const put = await fetch(location, { method: 'PUT', headers: { ...basicAuth(), 'content-type': 'application/octet-stream' }, body: bytes });
  assert.equal(put.status, 201, await put.text());
  assert.equal(put.headers.get('docker-content-digest'), digest);
  return digest;
}

test('an artifact pushed under a tag is pulled back by digest, byte for byte', async () => {
  const repo = `aicr/${uniqueName('bundle')}`;
  const layer = new TextEncoder().encode(`bundle made at ${new Date().toISOString()}\n`);
  const config = new TextEncoder().encode('{}');
  const layerDigest = await pushBlob(repo, layer);
  const configDigest = await pushBlob(repo, config);
  const manifest = new TextEncoder().encode(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: 'application/vnd.aicr.test.bundle',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: configDigest, size: config.length },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length }],
    }),
  );
  const put = await fetch(`${base()}/v2/${repo}/manifests/v1`, { method: 'PUT', headers: { ...basicAuth(), 'content-type': OCI_MANIFEST }, body: manifest });
  assert.equal(put.status, 201, await put.text());
  const manifestDigest = put.headers.get('docker-content-digest');
  assert.equal(manifestDigest, digestOf(manifest));

  const byDigest = await fetch(`${base()}/v2/${repo}/manifests/${manifestDigest}`, { headers: { ...basicAuth(), accept: OCI_MANIFEST } });
  assert.equal(byDigest.status, 200);
  assert.equal(byDigest.headers.get('content-type'), OCI_MANIFEST);
  assert.deepEqual(new Uint8Array(await byDigest.arrayBuffer()), manifest);
  const blob = await fetch(`${base()}/v2/${repo}/blobs/${layerDigest}`, { headers: basicAuth() });
  assert.equal(blob.status, 200);
  assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), layer);

  const tag = await fetch(`${base()}/v2/${repo}/manifests/v1`, { method: 'HEAD', headers: { ...basicAuth(), accept: OCI_MANIFEST } });
  assert.equal(tag.headers.get('docker-content-digest'), manifestDigest, 'the tag resolves to the pushed digest');
});

test('without credentials, or with a wrong password, the registry answers 401 with its Basic challenge', async () => {
  const anonymous = await fetch(`${base()}/v2/`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="aicr-testenv-registry"');
  const wrong = await fetch(`${base()}/v2/aicr/anything/blobs/uploads/`, { method: 'POST', headers: basicAuth('not-the-password') });
  assert.equal(wrong.status, 401);
  const body = (await wrong.json()) as { errors?: { code?: string }[] };
  assert.equal(body.errors?.[0]?.code, 'UNAUTHORIZED');
  const ok = await fetch(`${base()}/v2/`, { headers: basicAuth() });
  assert.equal(ok.status, 200);
});

// The test environment's OCI registry is the real CNCF distribution (v3), on loopback with
// htpasswd (bcrypt) auth and its storage on tmpfs. These tests speak the OCI distribution
// API to it directly: an artifact pushed under a tag is pulled back by digest, and a client
// without the right credentials gets the registry's own 401. And the real AICR CLI, run as a
// Job, pushes its Argo CD bundle there with the credentials of a mounted docker config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { core, jobReaches, serviceAccountWith } from '../helpers/cluster.ts';
import { kubectl } from '../../harness/runtime.ts';
import { OCI_MANIFEST, basicAuth, bundleJob, digestOf, pushBlob, pushManifest } from '../helpers/oci.ts';

function base(): string {
  return `http://${testEnv().TESTENV_REGISTRY}`;
}

test('an artifact pushed under a tag is pulled back by digest, byte for byte', async () => {
  const repo = `aicr/${uniqueName('bundle')}`;
  const layer = new TextEncoder().encode(`bundle made at ${new Date().toISOString()}\n`);
  const config = new TextEncoder().encode('{}');
  const layerDigest = await pushBlob(base(), repo, layer);
  const configDigest = await pushBlob(base(), repo, config);
  const { bytes: manifest, digest: manifestDigest } = await pushManifest(base(), repo, 'v1', {
    layer: { digest: layerDigest, size: layer.length },
    config: { digest: configDigest, size: config.length },
  });

  const byDigest = await fetch(`${base()}/v2/${repo}/manifests/${manifestDigest}`, {
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(byDigest.status, 200);
  assert.equal(byDigest.headers.get('content-type'), OCI_MANIFEST);
  assert.deepEqual(new Uint8Array(await byDigest.arrayBuffer()), manifest);
  const blob = await fetch(`${base()}/v2/${repo}/blobs/${layerDigest}`, { headers: basicAuth() });
  assert.equal(blob.status, 200);
  assert.deepEqual(new Uint8Array(await blob.arrayBuffer()), layer);

  const tag = await fetch(`${base()}/v2/${repo}/manifests/v1`, {
    method: 'HEAD',
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(tag.headers.get('docker-content-digest'), manifestDigest, 'the tag resolves to the pushed digest');
});

test('without credentials, or with a wrong password, the registry answers 401 with its Basic challenge', async () => {
  const anonymous = await fetch(`${base()}/v2/`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="aicr-testenv-registry"');
  const wrong = await fetch(`${base()}/v2/aicr/anything/blobs/uploads/`, {
    method: 'POST',
    headers: basicAuth('not-the-password'),
  });
  assert.equal(wrong.status, 401);
  const body = (await wrong.json()) as { errors?: { code?: string }[] };
  assert.equal(body.errors?.[0]?.code, 'UNAUTHORIZED');
  const ok = await fetch(`${base()}/v2/`, { headers: basicAuth() });
  assert.equal(ok.status, 200);
});

test('aicr bundle run as a Job pushes its Argo CD bundle to the registry; the digest it reports pulls back', async () => {
  const ns = uniqueName('bundle');
  await serviceAccountWith(ns, 'default', []);
  const { TESTENV_REGISTRY: registry, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  await kubectl(
    'create',
    'secret',
    'docker-registry',
    'registry-push',
    '-n',
    ns,
    `--docker-server=${registry}`,
    `--docker-username=${user}`,
    `--docker-password=${password}`,
  );
  const repo = `aicr/${ns}`;
  await bundleJob(ns, 'push', `${registry}/${repo}:v1`, true);
  await jobReaches(ns, 'push', 'Complete', 120_000);
  const logs = await kubectl('logs', '-n', ns, 'job/push');
  const digest = /OCI artifact pushed successfully: .*digest=(sha256:[0-9a-f]{64})/.exec(logs)?.[1];
  assert.ok(digest, `the CLI reports the pushed digest:\n${logs}`);

  const manifest = await fetch(`${base()}/v2/${repo}/manifests/${digest}`, {
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(manifest.status, 200);
  const bytes = new Uint8Array(await manifest.arrayBuffer());
  assert.equal(digestOf(bytes), digest);
  const { layers } = JSON.parse(new TextDecoder().decode(bytes)) as { layers: { digest: string; size: number }[] };
  assert.ok(layers.length > 0);
  for (const layer of layers) {
    const blob = await fetch(`${base()}/v2/${repo}/blobs/${layer.digest}`, { headers: basicAuth() });
    assert.equal(blob.status, 200);
    const content = new Uint8Array(await blob.arrayBuffer());
    assert.equal(digestOf(content), layer.digest);
  }
  const tag = await fetch(`${base()}/v2/${repo}/manifests/v1`, {
    method: 'HEAD',
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(tag.headers.get('docker-content-digest'), digest);
});

test("aicr bundle without registry credentials fails its Job: the registry's Basic challenge reaches the CLI", async () => {
  const ns = uniqueName('bundle');
  await serviceAccountWith(ns, 'default', []);
  await bundleJob(ns, 'anon', `${testEnv().TESTENV_REGISTRY}/aicr/${ns}:v1`, false);
  await jobReaches(ns, 'anon', 'Failed', 120_000);
  // The registry's 401 carries a Basic challenge; the CLI's client answers it has no credential.
  assert.match(
    await kubectl('logs', '-n', ns, 'job/anon'),
    /failed to push artifact to registry: .*: basic credential not found/,
  );
  const pods = await core().listNamespacedPod({ namespace: ns });
  assert.notEqual(pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
});

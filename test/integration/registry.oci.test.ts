// The test environment's OCI registry is the real CNCF distribution (v3), on loopback with
// htpasswd (bcrypt) auth and its storage on tmpfs. These tests speak the OCI distribution
// API to it directly: an artifact pushed under a tag is pulled back by digest, and a client
// without the right credentials gets the registry's own 401. And the real AICR CLI, run as a
// Job, pushes its Argo CD bundle there with the credentials of a mounted docker config.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testEnv, uniqueName } from '../helpers/env.ts';
import { batch, core, jobReaches, oneShotJob, serviceAccountWith } from '../helpers/cluster.ts';
import { kubectl } from '../helpers/runtime.ts';

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

/** A Job that makes a recipe and pushes its Argo CD bundle to the registry, as the render stage does. */
async function bundleJob(ns: string, name: string, ref: string, withCredentials: boolean): Promise<void> {
  const script = [
    'cd /work',
    'aicr recipe --service eks --accelerator h100 --intent training --os ubuntu -o recipe.yaml',
    `aicr bundle -r recipe.yaml --deployer argocd -o oci://${ref} --plain-http`,
  ].join(' && ');
  const docker = withCredentials ? [{ name: 'docker', secret: { secretName: 'registry-push', items: [{ key: '.dockerconfigjson', path: 'config.json' }] } }] : [];
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, {
      volumes: [{ name: 'work', emptyDir: {} }, ...docker],
      containers: [
        {
          name: 'aicr',
          image: 'ghcr.io/nvidia/aicr:v0.11.1',
          command: ['/bin/sh', '-c', script],
          volumeMounts: [{ name: 'work', mountPath: '/work' }, ...(withCredentials ? [{ name: 'docker', mountPath: '/root/.docker', readOnly: true }] : [])],
        },
      ],
    }),
  });
}

test('aicr bundle run as a Job pushes its Argo CD bundle to the registry; the digest it reports pulls back', async () => {
  const ns = uniqueName('bundle');
  await serviceAccountWith(ns, 'default', []);
  const { TESTENV_REGISTRY: registry, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  await kubectl('create', 'secret', 'docker-registry', 'registry-push', '-n', ns, `--docker-server=${registry}`, `--docker-username=${user}`, `--docker-password=${password}`);
  const repo = `aicr/${ns}`;
  await bundleJob(ns, 'push', `${registry}/${repo}:v1`, true);
  await jobReaches(ns, 'push', 'Complete', 120_000);
  const logs = await kubectl('logs', '-n', ns, 'job/push');
  const digest = /OCI artifact pushed successfully: .*digest=(sha256:[0-9a-f]{64})/.exec(logs)?.[1];
  assert.ok(digest, `the CLI reports the pushed digest:\n${logs}`);

  const manifest = await fetch(`${base()}/v2/${repo}/manifests/${digest}`, { headers: { ...basicAuth(), accept: OCI_MANIFEST } });
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
  const tag = await fetch(`${base()}/v2/${repo}/manifests/v1`, { method: 'HEAD', headers: { ...basicAuth(), accept: OCI_MANIFEST } });
  assert.equal(tag.headers.get('docker-content-digest'), digest);
});

test('aicr bundle without registry credentials fails its Job: the registry\'s Basic challenge reaches the CLI', async () => {
  const ns = uniqueName('bundle');
  await serviceAccountWith(ns, 'default', []);
  await bundleJob(ns, 'anon', `${testEnv().TESTENV_REGISTRY}/aicr/${ns}:v1`, false);
  await jobReaches(ns, 'anon', 'Failed', 120_000);
  // The registry's 401 carries a Basic challenge; the CLI's client answers it has no credential.
  assert.match(await kubectl('logs', '-n', ns, 'job/anon'), /failed to push artifact to registry: .*: basic credential not found/);
  const pods = await core().listNamespacedPod({ namespace: ns });
  assert.notEqual(pods.items[0]?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 0);
});

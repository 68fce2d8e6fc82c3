// The registry proxy, a labelled stand-in in front of the test registry: everything passes
// through it as it came (streamed and chunked blob uploads, Locations kept on the proxy), the
// registry's own 401 reaches the client through it, and the denial knob makes it answer 403
// DENIED with an OCI error body, which the real AICR CLI run as a Job reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { jobReaches, serviceAccountWith } from '../helpers/cluster.ts';
import { kubectl } from '../../harness/runtime.ts';
import { denyRegistry, withKnob } from '../helpers/knobs.ts';
import { OCI_MANIFEST, basicAuth, bundleJob, digestOf, pushBlob, pushManifest } from '../helpers/oci.ts';

const proxy = (): string => `http://${testEnv().TESTENV_REGISTRY_PROXY}`;

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

function onProxy(location: string | null): URL {
  const url = new URL(location ?? '', proxy());
  assert.equal(url.host, testEnv().TESTENV_REGISTRY_PROXY, `the Location keeps the client on the proxy: ${location}`);
  return url;
}

/** A blob uploaded in two PATCHes, one streamed with chunked transfer encoding and one with its range, then closed by PUT. */
async function chunkedUpload(repo: string, first: Uint8Array, second: Uint8Array): Promise<string> {
  const start = await fetch(`${proxy()}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: basicAuth() });
  assert.equal(start.status, 202);
  const streamed = await fetch(onProxy(start.headers.get('location')), {
    method: 'PATCH',
    headers: { ...basicAuth(), 'content-type': 'application/octet-stream' },
    body: streamOf(first.subarray(0, 3), first.subarray(3)),
    duplex: 'half',
  } as RequestInit);
  assert.equal(streamed.status, 202, await streamed.text());
  assert.equal(streamed.headers.get('range'), `0-${first.length - 1}`);
  const ranged = await fetch(onProxy(streamed.headers.get('location')), {
    method: 'PATCH',
    headers: {
      ...basicAuth(),
      'content-type': 'application/octet-stream',
      'content-range': `${first.length}-${first.length + second.length - 1}`,
    },
    body: second,
  });
  assert.equal(ranged.status, 202, await ranged.text());
  const close = onProxy(ranged.headers.get('location'));
  const digest = digestOf(new Uint8Array([...first, ...second]));
  close.searchParams.set('digest', digest);
  const put = await fetch(close, { method: 'PUT', headers: basicAuth() });
  assert.equal(put.status, 201, await put.text());
  return digest;
}

test('through the proxy, a blob uploaded in chunks and a manifest are pushed and pulled back by digest', async () => {
  const repo = `aicr/${uniqueName('proxied')}`;
  const [first, second] = [
    new TextEncoder().encode('streamed part, '),
    new TextEncoder().encode(`ranged part ${Date.now()}\n`),
  ];
  const layerDigest = await chunkedUpload(repo, first, second);
  const config = new TextEncoder().encode('{}');
  const configDigest = await pushBlob(proxy(), repo, config);
  const manifest = await pushManifest(proxy(), repo, 'v1', {
    layer: { digest: layerDigest, size: first.length + second.length },
    config: { digest: configDigest, size: config.length },
  });

  const byDigest = await fetch(`${proxy()}/v2/${repo}/manifests/${manifest.digest}`, {
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(byDigest.status, 200);
  assert.deepEqual(new Uint8Array(await byDigest.arrayBuffer()), manifest.bytes);
  const blob = await fetch(`${proxy()}/v2/${repo}/blobs/${layerDigest}`, { headers: basicAuth() });
  assert.equal(blob.status, 200);
  assert.equal(digestOf(new Uint8Array(await blob.arrayBuffer())), layerDigest);
  const direct = await fetch(`http://${testEnv().TESTENV_REGISTRY}/v2/${repo}/manifests/v1`, {
    method: 'HEAD',
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  assert.equal(
    direct.headers.get('docker-content-digest'),
    manifest.digest,
    'what went through the proxy is in the registry itself',
  );
});

test("the registry's own 401 and Basic challenge reach a client through the proxy, with or without a denial in force", async () => {
  const check = async (): Promise<void> => {
    const anonymous = await fetch(`${proxy()}/v2/aicr/anything/blobs/uploads/`, { method: 'POST' });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Basic realm="aicr-testenv-registry"');
    const wrong = await fetch(`${proxy()}/v2/aicr/anything/blobs/uploads/`, {
      method: 'POST',
      headers: basicAuth('not-the-password'),
    });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { errors?: { code?: string }[] }).errors?.[0]?.code, 'UNAUTHORIZED');
  };
  await check();
  await withKnob(denyRegistry(), check);
});

test('with the denial knob on, authenticated requests in its scope get 403 DENIED and its message; undone, they pass again', async () => {
  const repo = `aicr/${uniqueName('denied')}`;
  const layer = new TextEncoder().encode('kept');
  const digest = await pushBlob(proxy(), repo, layer);
  const message = 'pushes to aicr/ are blocked by the organisation policy';
  await withKnob(denyRegistry({ scope: 'push', message }), async () => {
    const push = await fetch(`${proxy()}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: basicAuth() });
    assert.equal(push.status, 403);
    assert.deepEqual(await push.json(), { errors: [{ code: 'DENIED', message }] });
    const pull = await fetch(`${proxy()}/v2/${repo}/blobs/${digest}`, { headers: basicAuth() });
    assert.equal(pull.status, 200, 'a push-only denial leaves pulls alone');
    await pull.arrayBuffer();
    const version = await fetch(`${proxy()}/v2/`, { headers: basicAuth() });
    assert.equal(version.status, 200, 'the version check is never refused');
    const direct = await fetch(`http://${testEnv().TESTENV_REGISTRY}/v2/${repo}/blobs/uploads/`, {
      method: 'POST',
      headers: basicAuth(),
    });
    assert.equal(direct.status, 202, "the registry's own address is not affected");
  });
  await withKnob(denyRegistry({ scope: 'pull' }), async () => {
    const pull = await fetch(`${proxy()}/v2/${repo}/blobs/${digest}`, { headers: basicAuth() });
    assert.equal(pull.status, 403);
    assert.equal(((await pull.json()) as { errors: { code: string }[] }).errors[0]?.code, 'DENIED');
  });
  await pushBlob(proxy(), repo, new TextEncoder().encode('after the denial'));
});

test('aicr bundle run as a Job against the proxy with the denial on fails, and its log carries the 403 and the message', async () => {
  const ns = uniqueName('denied');
  await serviceAccountWith(ns, 'default', []);
  const {
    TESTENV_REGISTRY_PROXY: registry,
    TESTENV_REGISTRY_USER: user,
    TESTENV_REGISTRY_PASSWORD: password,
  } = testEnv();
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
  const message = 'bundles may not be pushed here (test policy)';
  await withKnob(denyRegistry({ scope: 'push', message }), async () => {
    await bundleJob(ns, 'push', `${registry}/aicr/${ns}:v1`, true);
    await jobReaches(ns, 'push', 'Failed', 120_000);
  });
  const logs = await kubectl('logs', '-n', ns, 'job/push');
  assert.match(logs, /failed to push artifact to registry: .*403/, logs);
  assert.ok(logs.includes(message), `the registry's message reaches the CLI's output:\n${logs}`);
});

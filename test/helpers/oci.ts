// Speaking the OCI distribution API to the test registry (or to it through the registry
// proxy), and running the real AICR CLI as a Job that pushes a bundle there.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { testEnv } from '../../harness/env.ts';
import { batch, oneShotJob } from './cluster.ts';

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const AICR_IMAGE = 'ghcr.io/nvidia/aicr:v0.11.1';

export function basicAuth(password = testEnv().TESTENV_REGISTRY_PASSWORD): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${testEnv().TESTENV_REGISTRY_USER}:${password}`).toString('base64')}` };
}

export const digestOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A monolithic blob upload to `base` (http://host:port): POST for a session, then PUT the bytes with their digest. */
export async function pushBlob(base: string, repo: string, bytes: Uint8Array): Promise<string> {
  const digest = digestOf(bytes);
  const start = await fetch(`${base}/v2/${repo}/blobs/uploads/`, { method: 'POST', headers: basicAuth() });
  assert.equal(start.status, 202, await start.text());
  const location = new URL(start.headers.get('location') ?? '', base);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { ...basicAuth(), 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  assert.equal(put.status, 201, await put.text());
  assert.equal(put.headers.get('docker-content-digest'), digest);
  return digest;
}

export interface Descriptor {
  readonly digest: string;
  readonly size: number;
}

/** A manifest naming one layer (a plain tar unless told) and an empty config, pushed under `tag`; returns its bytes and digest. */
export async function pushManifest(
  base: string,
  repo: string,
  tag: string,
  parts: { layer: Descriptor; config: Descriptor; layerMediaType?: string },
): Promise<{ bytes: Uint8Array; digest: string }> {
  const { layer, config, layerMediaType = 'application/vnd.oci.image.layer.v1.tar' } = parts;
  const bytes = new TextEncoder().encode(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: 'application/vnd.aicr.test.bundle',
      config: { mediaType: 'application/vnd.oci.empty.v1+json', ...config },
      layers: [{ mediaType: layerMediaType, ...layer }],
    }),
  );
  const put = await fetch(`${base}/v2/${repo}/manifests/${tag}`, {
    method: 'PUT',
    headers: { ...basicAuth(), 'content-type': OCI_MANIFEST },
    body: bytes,
  });
  assert.equal(put.status, 201, await put.text());
  assert.equal(put.headers.get('docker-content-digest'), digestOf(bytes));
  return { bytes, digest: digestOf(bytes) };
}

/** A Job that makes a recipe and pushes its Argo CD bundle to `ref`, as the render stage does. */
export async function bundleJob(ns: string, name: string, ref: string, withCredentials: boolean): Promise<void> {
  const script = [
    'cd /work',
    'aicr recipe --service eks --accelerator h100 --intent training --os ubuntu -o recipe.yaml',
    `aicr bundle -r recipe.yaml --deployer argocd -o oci://${ref} --plain-http`,
  ].join(' && ');
  const docker = withCredentials
    ? [
        {
          name: 'docker',
          secret: { secretName: 'registry-push', items: [{ key: '.dockerconfigjson', path: 'config.json' }] },
        },
      ]
    : [];
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, {
      volumes: [{ name: 'work', emptyDir: {} }, ...docker],
      containers: [
        {
          name: 'aicr',
          image: AICR_IMAGE,
          command: ['/bin/sh', '-c', script],
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            ...(withCredentials ? [{ name: 'docker', mountPath: '/root/.docker', readOnly: true }] : []),
          ],
        },
      ],
    }),
  });
}

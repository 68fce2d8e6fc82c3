// Resolution takes the snapshot's digest from status.discovery and reads the document only when a
// recipe Job is to be given it; a document that is gone or no longer the recorded one is an
// unreadable snapshot, never a recipe built from something else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CM_OUTPUT_KEY } from '../../shared/aicr/stages.ts';
import type { ConfigMapObject, RuntimeObject } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { SnapshotUnreadableError, discoveredSnapshot } from '../../shared/steps/resolve/discovered.ts';

const TEXT =
  'kind: Snapshot\napiVersion: aicr.nvidia.com/v1alpha1\nmeasurements:\n- type: K8s\n  subtypes:\n  - subtype: server\n    data: {version: v1.33.1}\n';
const DIGEST = `sha256:${createHash('sha256').update(TEXT).digest('hex')}`;

function runtimeNaming(digest: string | undefined): RuntimeObject {
  const snapshot = { configMap: 'aicr-snapshot-1', ...(digest ? { digest } : {}) };
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1' },
    spec: {},
    status: { discovery: { snapshot } },
  } as unknown as RuntimeObject;
}

function snapshotPort(text: string | undefined): KubePort & { gets: number } {
  const port = {
    gets: 0,
    get: async (): Promise<ConfigMapObject | undefined> => {
      port.gets++;
      return text === undefined
        ? undefined
        : ({
            metadata: { name: 'aicr-snapshot-1', uid: 'c-1', resourceVersion: '1' },
            data: { [CM_OUTPUT_KEY]: text },
          } as ConfigMapObject);
    },
  };
  return port as unknown as KubePort & { gets: number };
}

test('with the digest recorded, the snapshot is read only when its document is asked for', async () => {
  const kube = snapshotPort(TEXT);
  const found = await discoveredSnapshot(kube, runtimeNaming(DIGEST));
  assert.equal(found.state, 'ready');
  assert.ok(found.state === 'ready');
  assert.equal(found.snapshot.digest, DIGEST);
  assert.equal(kube.gets, 0, 'a look whose stages are done reads no snapshot');
  assert.equal(await found.snapshot.text(), TEXT);
  assert.equal(kube.gets, 1);
});

test('a recorded snapshot that is gone or holds another document is unreadable when it is needed', async () => {
  for (const [text, problem] of [
    [undefined, /ConfigMap aicr-system\/aicr-snapshot-1 is missing/],
    [TEXT.replace('v1.33.1', 'v1.34.0'), /no longer holds the snapshot of sha256:/],
  ] as const) {
    const found = await discoveredSnapshot(snapshotPort(text), runtimeNaming(DIGEST));
    assert.ok(found.state === 'ready');
    await assert.rejects(
      found.snapshot.text(),
      (err: unknown) => err instanceof SnapshotUnreadableError && problem.test(err.message),
    );
  }
});

test('without a recorded digest the document is read at once and its digest taken from it', async () => {
  const kube = snapshotPort(TEXT);
  const found = await discoveredSnapshot(kube, runtimeNaming(undefined));
  assert.ok(found.state === 'ready');
  assert.equal(found.snapshot.digest, DIGEST);
  assert.equal(kube.gets, 1);
  const gone = await discoveredSnapshot(snapshotPort(undefined), runtimeNaming(undefined));
  assert.equal(gone.state, 'failed');
  assert.ok(gone.state === 'failed');
  assert.equal(gone.reason, 'SnapshotUnreadable');
});

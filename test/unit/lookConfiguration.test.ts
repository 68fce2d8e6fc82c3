// A look reads the configuration only when it may have changed: a message naming the version this
// process last read for the step reuses what it read; any other message reads it again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGURATION } from '../../shared/api/constants.ts';
import type { ConfigMapObject } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { configurationUnderWay } from '../../shared/look/configuration.ts';
import { configurationData } from '../../harness/configurationData.ts';
import { watchOnlyKube } from '../helpers/watchOnlyKube.ts';

/** A port serving the configuration at a version the test moves; it counts the reads. */
function configurationKube(): { kube: KubePort; reads: () => number; edit: (rv: string) => void } {
  let reads = 0;
  let cm: ConfigMapObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace, uid: 'c', resourceVersion: '10' },
    data: configurationData({}),
  };
  const kube: KubePort = {
    ...watchOnlyKube(() => Promise.reject(new Error('not used'))),
    get: <T>() => {
      reads++;
      return Promise.resolve(structuredClone(cm) as unknown as T);
    },
  };
  return {
    kube,
    reads: () => reads,
    edit: (rv) => (cm = { ...cm, metadata: { ...cm.metadata, resourceVersion: rv } }),
  };
}

test('a message naming the version last read for the step reads nothing; another version, or none, reads again', async () => {
  const { kube, reads, edit } = configurationKube();
  const item = (configuration?: string) => ({
    step: 'drift-check',
    cluster: 'unit-a',
    ...(configuration ? { configuration } : {}),
  });
  await configurationUnderWay(kube, item())();
  assert.equal(reads(), 1, 'no version named: read');
  await configurationUnderWay(kube, item('10'))();
  await configurationUnderWay(kube, item('10'))();
  assert.equal(reads(), 1, 'the version last read: nothing read');
  edit('11');
  const fresh = configurationUnderWay(kube, item('11'));
  assert.equal(reads(), 2, 'a newer version: read again');
  assert.ok((await fresh()).aicr);
  await configurationUnderWay(kube, item('11'))();
  assert.equal(reads(), 2);
  await configurationUnderWay(kube, item())();
  assert.equal(reads(), 3, 'a message naming none (sent before the forwarder knew the version): read');
});

test("one step's read never stands in for another's: each reads as its own identity", async () => {
  const { kube, reads } = configurationKube();
  await configurationUnderWay(kube, { step: 'resolve', cluster: 'unit-b', configuration: '10' })();
  await configurationUnderWay(kube, { step: 'snapshot', cluster: 'unit-b', configuration: '10' })();
  assert.equal(reads(), 2);
});

// The configuration's watch keeps its version for the process, every message carries it, and a
// change to its data wakes each step that reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIGURATION } from '../../shared/api/constants.ts';
import { MemoryCheckpoint } from '../../shared/forwarder/checkpoint.ts';
import { CONFIGURATION_WATCH, ConfigurationVersion } from '../../shared/forwarder/configurationWatch.ts';
import { RUNTIME_WATCH, watchedBy } from '../../shared/forwarder/watched.ts';
import type { Watchable, WatchedKind } from '../../shared/forwarder/watchedKind.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import type { WorkItem } from '../../shared/queue/workItem.ts';
import { forwardBriefly } from '../helpers/forwardBriefly.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type ReplayedEvent, replayKube } from '../helpers/watchOnlyKube.ts';

const config = (rv: number, version: string): Watchable =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace, uid: 'cfg', resourceVersion: String(rv) },
    data: { [CONFIGURATION.key]: `aicr:\n  versions:\n    ${version}: image\n` },
  }) as Watchable;

const runtime = (generation: number, rv: number): Watchable =>
  ({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', resourceVersion: String(rv), generation },
    spec: { aicrVersion: `v0.${generation}.0` },
  }) as Watchable;

const theRuntime: KubePort['get'] = <T>() => Promise.resolve(runtime(1, 1) as T);

function forward(
  watched: WatchedKind<Watchable>,
  events: readonly ReplayedEvent[],
  configuration: ConfigurationVersion,
): Promise<WorkItem[]> {
  const kube = replayKube(events, { get: theRuntime });
  return forwardBriefly(watched, { kube, checkpoint: new MemoryCheckpoint('1'), configuration }, 40);
}

test('messages carry the version of the configuration the forwarder last saw, and none before it has seen one', async () => {
  const version = new ConfigurationVersion();
  const before = await forward(
    RUNTIME_WATCH as WatchedKind<Watchable>,
    [{ type: 'MODIFIED', object: runtime(2, 5) }],
    version,
  );
  assert.ok(before.length > 0);
  assert.ok(before.every((i) => i.configuration === undefined));
  await forward(
    CONFIGURATION_WATCH as WatchedKind<Watchable>,
    [{ type: 'MODIFIED', object: config(10, 'v0.1.0') }],
    version,
  );
  assert.equal(version.version, '10');
  const after = await forward(
    RUNTIME_WATCH as WatchedKind<Watchable>,
    [{ type: 'MODIFIED', object: runtime(3, 6) }],
    version,
  );
  assert.ok(after.length > 0 && after.every((i) => i.configuration === '10'), JSON.stringify(after));
});

test('a change to the configuration wakes every step that reads it, naming the new version; the ConfigMap gone, messages name none', async () => {
  const version = new ConfigurationVersion();
  const sent = await forward(
    CONFIGURATION_WATCH as WatchedKind<Watchable>,
    [
      { type: 'MODIFIED', object: config(10, 'v0.1.0') },
      { type: 'MODIFIED', object: config(11, 'v0.2.0') },
    ],
    version,
  );
  const readers = STEP_TABLE.filter((r) => 'readsConfiguration' in r && r.readsConfiguration).map((r) => r.name);
  const woken = new Set(sent.map((i) => i.step));
  assert.deepEqual([...woken].sort(), [...readers].sort());
  assert.ok(sent.some((i) => i.configuration === '11'));
  await forward(
    CONFIGURATION_WATCH as WatchedKind<Watchable>,
    [{ type: 'DELETED', object: config(12, 'v0.2.0') }],
    version,
  );
  assert.equal(version.version, undefined);
  assert.ok(watchedBy().includes(CONFIGURATION_WATCH as WatchedKind<Watchable>), 'the forwarder watches it');
});

test('listing the configuration (a forwarder starting) learns its version and wakes no step', async () => {
  const version = new ConfigurationVersion();
  const kube: KubePort = {
    ...replayKube([], { get: theRuntime }),
    list: <T>() => Promise.resolve({ items: [config(20, 'v0.1.0')] as T[], resourceVersion: '20' }),
  };
  const sent = await forwardBriefly(
    CONFIGURATION_WATCH as WatchedKind<Watchable>,
    { kube, configuration: version },
    30,
  );
  assert.equal(version.version, '20');
  assert.deepEqual(sent, []);
});

test('a configuration watch that fails forgets the version, so messages stop vouching for it until a list succeeds', async () => {
  const version = new ConfigurationVersion();
  version.seen({ metadata: { resourceVersion: '30' } });
  const kube: KubePort = {
    ...replayKube([], { get: theRuntime }),
    // Refused, as when the forwarder's Role went with a deleted namespace.
    list: () => Promise.reject(Object.assign(new Error('forbidden'), { status: 403 })),
  };
  await forwardBriefly(CONFIGURATION_WATCH as WatchedKind<Watchable>, { kube, configuration: version }, 30);
  assert.equal(version.version, undefined);
});

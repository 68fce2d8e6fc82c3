import { test } from 'node:test';
import assert from 'node:assert/strict';
import { atExpression, timerName, timerRuntime } from '../../shared/aws/schedulerTimers.ts';
import { ConfigMapCheckpoint, isNewer } from '../../shared/forwarder/configMapCheckpoint.ts';
import { ConflictError } from '../../shared/errors.ts';
import type { ConfigMapObject } from '../../shared/kube/kinds.ts';
import type { WritableObject } from '../../shared/kube/port.ts';
import { createLogger } from '../../shared/observability/log.ts';

test('timer names carry the runtime UID, fit Scheduler, and are stable per deduplication ID', () => {
  const uid = '5f0c1e2d-3a4b-4c5d-8e6f-708192a3b4c5';
  const name = timerName(`runtime-${uid}`, `${uid}/resolve/deadline`);
  assert.match(name, /^[0-9a-zA-Z-_.]{1,64}$/);
  assert.equal(name, timerName(`runtime-${uid}`, `${uid}/resolve/deadline`));
  assert.notEqual(name, timerName(`runtime-${uid}`, `${uid}/resolve/other`));
  assert.equal(timerRuntime(name), uid);
  assert.equal(timerRuntime('someone-elses-schedule'), undefined);
  assert.equal(atExpression(new Date('2026-12-01T10:00:00.123Z')), 'at(2026-12-01T10:00:00)');
});

test('a later etcd revision is newer; opaque versions count as newer', () => {
  assert.equal(isNewer('100', '99'), true);
  assert.equal(isNewer('99', '100'), false);
  assert.equal(isNewer('12345678901234567890', '9'), true);
  assert.equal(isNewer('abc', '100'), true);
  assert.equal(isNewer('5', undefined), true);
});

/** A ConfigMap store with resourceVersion preconditions, like the API server's. */
function store(initial?: string) {
  let cm: ConfigMapObject | undefined = initial
    ? { metadata: { name: 'c', namespace: 'n', uid: 'u', resourceVersion: '1' }, data: { resourceVersion: initial } }
    : undefined;
  let writes = 0;
  const write = <T>(next: WritableObject): Promise<T> => {
    if ((next.metadata.resourceVersion ?? undefined) !== cm?.metadata.resourceVersion)
      return Promise.reject(new ConflictError('conflict'));
    writes++;
    cm = {
      ...(next as ConfigMapObject),
      metadata: {
        ...(next as ConfigMapObject).metadata,
        uid: 'u',
        resourceVersion: String(Number(cm?.metadata.resourceVersion ?? 0) + 1),
      },
    };
    return Promise.resolve(cm as T);
  };
  return {
    writes: () => writes,
    value: () => cm?.data?.['resourceVersion'],
    race: (rv: string) => {
      cm = {
        metadata: {
          name: 'c',
          namespace: 'n',
          uid: 'u',
          resourceVersion: String(Number(cm?.metadata.resourceVersion ?? 0) + 1),
        },
        data: { resourceVersion: rv },
      };
    },
    kube: {
      get: <T>() => Promise.resolve(cm as T | undefined),
      create: <T>(_: unknown, next: WritableObject) => write<T>(next),
      update: <T>(_: unknown, next: WritableObject) => write<T>(next),
    },
  };
}

test('the checkpoint batches writes and flushes the latest value once', async () => {
  const s = store('10');
  let now = 0;
  const cp = new ConfigMapCheckpoint(s.kube, createLogger({ level: 'silent' }), {
    flushEveryMs: 30_000,
    now: () => now,
  });
  assert.equal(await cp.load(), '10');
  for (const rv of ['11', '12', '13']) await cp.save(rv);
  assert.equal(s.writes(), 0, 'nothing written within the flush interval');
  now = 31_000;
  await cp.save('14');
  assert.equal(s.writes(), 1);
  await cp.flush();
  assert.equal(s.writes(), 1, 'nothing new to write');
  await cp.save('15');
  await cp.flush();
  assert.equal(s.value(), '15');
});

test('a racing window that got further keeps its checkpoint; an older one is overwritten', async () => {
  const s = store('10');
  const cp = new ConfigMapCheckpoint(s.kube, createLogger({ level: 'silent' }));
  await cp.load();
  await cp.save('20');
  s.race('30');
  await cp.flush();
  assert.equal(s.value(), '30', 'the newer checkpoint stays');
  const cp2 = new ConfigMapCheckpoint(s.kube, createLogger({ level: 'silent' }));
  await cp2.load();
  await cp2.save('40');
  s.race('35');
  await cp2.flush();
  assert.equal(s.value(), '40');
});

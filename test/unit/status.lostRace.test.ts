// A status write that lost its race for the runtime's resourceVersion is applied again on a fresh
// read only when the race moved nothing the step decided from; otherwise the conflict stands and
// the whole step runs again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, TransientError } from '../../shared/errors.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import { RACE_REREADS, applyThroughRaces } from '../../shared/status/lostRace.ts';

const condition = (type: string, status: string) => ({
  type,
  status,
  reason: status === 'True' ? 'Done' : 'Working',
  message: '',
  lastTransitionTime: '2026-12-06T00:00:00Z',
});

function runtime(
  resourceVersion: string,
  change: Partial<RuntimeObject['metadata']> = {},
  conditions = [condition('Resolved', 'False'), condition('Released', 'False')],
): RuntimeObject {
  return {
    apiVersion: 'aicr.nvidia.com/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', generation: 2, resourceVersion, ...change },
    spec: {},
    status: { conditions },
  } as RuntimeObject;
}

/** A port whose only read is the runtime as it stands now. */
function portReading(now: RuntimeObject): KubePort & { reads: number } {
  const port = {
    reads: 0,
    get: async () => {
      port.reads++;
      return now;
    },
  };
  return port as unknown as KubePort & { reads: number };
}

/** The resolve step's own part of the runtime: its condition. */
const resolves = (rt: RuntimeObject) => rt.status?.conditions?.filter((c) => c.type === 'Resolved');

/** A write that loses `losses` races, then succeeds; it records the resourceVersion of each try. */
function writer(losses: number) {
  const tried: string[] = [];
  return {
    tried,
    write: async (rt: RuntimeObject) => {
      tried.push(rt.metadata.resourceVersion ?? '');
      if (tried.length <= losses) throw new ConflictError('write conflict (Conflict); re-reading');
      return 'written';
    },
  };
}

test('a write that lost its race to another step is applied again on a fresh read, not run again', async () => {
  const read = runtime('10');
  // The rollout step wrote Released in between: not what resolve decided from.
  const now = runtime('11', {}, [condition('Resolved', 'False'), condition('Released', 'True')]);
  const kube = portReading(now);
  const w = writer(1);
  assert.equal(await applyThroughRaces(kube, read, resolves, w.write), 'written');
  assert.deepEqual(w.tried, ['10', '11']);
  assert.equal(kube.reads, 1);
});

test('a race that only added a finalizer (the rollout step’s, on a new runtime) is applied again on a fresh read', async () => {
  const now = runtime('11', { finalizers: ['aicr.nvidia.com/cleanup'] });
  const w = writer(1);
  assert.equal(await applyThroughRaces(portReading(now), runtime('10'), resolves, w.write), 'written');
  assert.deepEqual(w.tried, ['10', '11']);
});

test('a race that moved the step’s own status (a second worker of the same step) leaves the conflict to a rerun', async () => {
  const now = runtime('11', {}, [condition('Resolved', 'True'), condition('Released', 'False')]);
  const w = writer(1);
  await assert.rejects(applyThroughRaces(portReading(now), runtime('10'), resolves, w.write), ConflictError);
  assert.deepEqual(w.tried, ['10']);
});

for (const [what, change] of [
  ['the spec (its generation)', { generation: 3 }],
  ['a deletion', { deletionTimestamp: '2026-12-06T00:00:01Z' }],
  ['an annotation', { annotations: { 'aicr.nvidia.com/approve': 'x' } }],
  ['the runtime itself (a successor of the same name)', { uid: 'u-2' }],
] as const) {
  test(`a race that moved ${what} leaves the conflict to a rerun`, async () => {
    const w = writer(1);
    const now = runtime('11', change as Partial<RuntimeObject['metadata']>);
    await assert.rejects(applyThroughRaces(portReading(now), runtime('10'), resolves, w.write), ConflictError);
    assert.deepEqual(w.tried, ['10']);
  });
}

test('a runtime gone after the race leaves the conflict to a rerun', async () => {
  const kube = { get: async () => undefined } as unknown as KubePort;
  await assert.rejects(applyThroughRaces(kube, runtime('10'), resolves, writer(1).write), ConflictError);
});

test('after as many lost races as it reads again, the conflict stands', async () => {
  const w = writer(RACE_REREADS + 1);
  await assert.rejects(applyThroughRaces(portReading(runtime('11')), runtime('10'), resolves, w.write), ConflictError);
  assert.equal(w.tried.length, RACE_REREADS + 1);
});

test('a failure other than a lost race is not retried', async () => {
  const kube = portReading(runtime('11'));
  const failing = async (): Promise<string> => {
    throw new TransientError('the API server did not answer');
  };
  await assert.rejects(applyThroughRaces(kube, runtime('10'), resolves, failing), TransientError);
  assert.equal(kube.reads, 0);
});

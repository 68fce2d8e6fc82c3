// A look's status goes in one apply: the step's own conditions with the summary worked out from
// the runtime as that apply leaves it. A step with no status of its own sends the summary under
// the summary's manager, so its other applies (discovery, notifications) never drop it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIELD_MANAGER, SUMMARY_CONDITIONS } from '../../shared/api/constants.ts';
import type { Condition } from '../../shared/api/condition.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import type { ApplyOptions, KubePort, WritableObject } from '../../shared/kube/port.ts';
import type { DesiredCondition } from '../../shared/status/conditions.ts';
import { type StatusWriter, writeStepStatus } from '../../shared/status/writeStatus.ts';

const NOW = new Date('2026-12-07T00:00:00Z');

function runtime(conditions: Condition[] = [], observedGeneration?: number): RuntimeObject {
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', generation: 3, resourceVersion: '7' },
    spec: {},
    status: { conditions, ...(observedGeneration === undefined ? {} : { observedGeneration }) },
  } as RuntimeObject;
}

interface Applied {
  readonly body: WritableObject;
  readonly opts: ApplyOptions;
}

type RecordingPort = KubePort & { applied: Applied[]; created: WritableObject[] };

function recordingPort(): RecordingPort {
  const applied: Applied[] = [];
  const created: WritableObject[] = [];
  const port = {
    applied,
    created,
    applyStatus: async (_kind: unknown, body: WritableObject, opts: ApplyOptions) => {
      applied.push({ body, opts });
      return body;
    },
    create: async (_kind: unknown, body: WritableObject) => {
      created.push(body);
      return body;
    },
  };
  return port as unknown as RecordingPort;
}

const resolver: StatusWriter = { name: 'resolve', owns: ['Resolved'], fieldManager: FIELD_MANAGER.resolve };
const watcher: StatusWriter = { name: 'snapshot', owns: [], fieldManager: FIELD_MANAGER.snapshot };

/** One write by `row` on a new runtime (generation 3, resourceVersion 7), recorded. */
async function writeOnNew(
  row: StatusWriter,
  desired: DesiredCondition[],
  conditions: Condition[] = [],
): Promise<{ kube: RecordingPort; writes: number }> {
  const kube = recordingPort();
  const read = runtime(conditions);
  const writes = await writeStepStatus({ kube, runtime: read, row, desired, expected: ['Resolved'], now: NOW });
  return { kube, writes };
}

const typesOf = (body: WritableObject): string[] =>
  ((body['status'] as { conditions: Condition[] }).conditions ?? []).map((c) => c.type).sort();

test('a step with a condition of its own writes it and the summary in one apply, under its manager', async () => {
  const { kube, writes } = await writeOnNew(resolver, [
    { type: 'Resolved', status: 'False', reason: 'Resolving', message: 'resolving' },
  ]);
  assert.equal(writes, 1);
  assert.equal(kube.applied.length, 1);
  const [only] = kube.applied;
  assert.ok(only);
  assert.equal(only.opts.fieldManager, FIELD_MANAGER.resolve);
  assert.deepEqual(typesOf(only.body), ['Ready', 'Reconciling', 'Resolved', 'Stalled']);
  assert.equal((only.body['status'] as { observedGeneration: number }).observedGeneration, 3);
  // Conditional on what was read, so a racing write of another step makes it re-read.
  assert.equal(only.body.metadata.resourceVersion, '7');
});

test('the summary is worked out from the runtime as the apply leaves it, not as it was read', async () => {
  const { kube } = await writeOnNew(resolver, [
    { type: 'Resolved', status: 'False', reason: 'InvalidSpec', message: 'spec.criteria: bad' },
  ]);
  const stalled = (kube.applied[0]?.body['status'] as { conditions: Condition[] }).conditions.find(
    (c) => c.type === 'Stalled',
  );
  assert.equal(stalled?.status, 'True');
  assert.equal(stalled?.reason, 'InvalidSpec');
});

test('a step with no status of its own sends the summary under the summary manager', async () => {
  const { kube, writes } = await writeOnNew(watcher, []);
  assert.equal(writes, 1);
  const [only] = kube.applied;
  assert.ok(only);
  assert.equal(only.opts.fieldManager, FIELD_MANAGER.summary);
  assert.deepEqual(typesOf(only.body), [...SUMMARY_CONDITIONS].sort());
});

test("nothing is sent when neither the step's conditions nor the summary would move", async () => {
  const first = recordingPort();
  const write = {
    row: resolver,
    desired: [{ type: 'Resolved' as const, status: 'True' as const, reason: 'Resolved', message: 'plan p' }],
    expected: ['Resolved' as const],
    now: NOW,
  };
  await writeStepStatus({ ...write, kube: first, runtime: runtime() });
  const written = first.applied[0]?.body['status'] as { conditions: Condition[] };
  const again = recordingPort();
  assert.equal(await writeStepStatus({ ...write, kube: again, runtime: runtime(written.conditions, 3) }), 0);
  assert.equal(again.applied.length, 0);
});

const reasonsOf = (kube: RecordingPort): unknown[] => kube.created.map((e) => e['reason']);

test('COND-4 a condition appearing in a normal state is no Event; one appearing as a Warning is, and so is every later change', async () => {
  const opening = await writeOnNew(resolver, [
    { type: 'Resolved', status: 'False', reason: 'Resolving', message: 'discovering the cluster' },
  ]);
  assert.deepEqual(reasonsOf(opening.kube), [], 'the opening state is read from the condition');

  const stalled = await writeOnNew(resolver, [
    { type: 'Resolved', status: 'False', reason: 'InvalidSpec', message: 'spec.criteria: bad' },
  ]);
  assert.deepEqual(reasonsOf(stalled.kube), ['InvalidSpec'], 'a stall on arrival is a Warning Event');
  assert.equal(stalled.kube.created[0]?.['type'], 'Warning');

  const resolving: Condition = {
    type: 'Resolved',
    status: 'False',
    reason: 'Resolving',
    message: 'discovering the cluster',
    lastTransitionTime: NOW.toISOString(),
    observedGeneration: 3,
  };
  const moved = await writeOnNew(
    resolver,
    [{ type: 'Resolved', status: 'True', reason: 'Resolved', message: 'plan p resolved' }],
    [resolving],
  );
  assert.deepEqual(reasonsOf(moved.kube), ['Resolved'], 'a change of a condition that was there is an Event');
  assert.equal(moved.kube.created[0]?.['type'], 'Normal');
});

// KROP-4: one writer per runtime. A change delivered twice, or two workers on the same
// runtime at once, make exactly one step write and one summary write, counted by the API
// server's audit log; a no-op reconcile makes none. OBS-2: the losing worker's conflict is
// only logged and retried, never turned into a condition.
import { test, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Kind } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { EmbeddedQueue } from '../../shared/queue/embedded.ts';
import { encodeWorkItem, runtimeGroup, type WorkItem } from '../../shared/queue/workItem.ts';
import { dispatchAll, dispatchDeps, resolveItem, runResolveOnce } from '../helpers/steps.ts';
import { auditMark } from '../helpers/audit.ts';
import { stepKube } from '../helpers/controlPlane.ts';
import { captureLogger } from '../helpers/logs.ts';
import { controlPlaneRequests } from '../helpers/statusWrites.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../helpers/runtime.ts';

let item: WorkItem;

beforeEach(async () => {
  await ensureCrds();
  await deleteRuntime();
  // A version the configuration does not pin: resolution settles at once (AICRVersionMismatch) and starts no Job,
  // so every write below comes from the deliveries under test.
  const rt = await createRuntime({ aicrVersion: 'v0.0.1', criteria: { service: 'eks' } });
  item = resolveItem(rt.metadata.uid);
});
after(deleteRuntime);

test('KROP-4 a change delivered twice makes exactly one step write and one summary write', async (t) => {
  const mark = auditMark();
  const { log } = captureLogger();
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 20 });
  const deps = dispatchDeps(stepKube('resolve'), log, queue);
  queue.consume(async (m) => {
    await dispatchAll(m, deps);
  });
  // At-least-once delivery: the same change arrives as two messages (distinct IDs get past deduplication).
  for (const id of ['first', 'second']) await queue.send({ step: 'resolve', group: runtimeGroup(item.runtime.uid), dedupId: id, body: encodeWorkItem(item) });
  await queue.idle();
  queue.stop();
  const count = await controlPlaneRequests(mark);
  t.diagnostic(`status writes: ${count.ok} ok, ${count.conflicts} conflicts; reads: ${count.reads}`);
  assert.deepEqual(count.okManagers, ['aicr-resolve', 'aicr-status-summary']);
  // Besides the status, only the one Event of Resolved's transition (COND-4).
  assert.deepEqual(count.otherWrites.map((e) => `${e.verb} ${e.objectRef?.resource ?? ''}`), ['create events']);
});

test('KROP-4 two workers racing on one runtime make exactly one step write and one summary write (OBS-2)', async (t) => {
  const mark = auditMark();
  const a = captureLogger();
  const b = captureLogger();
  const results = await Promise.allSettled([
    runResolveOnce(item, { kube: stepKube('resolve'), log: a.log }),
    runResolveOnce(item, { kube: stepKube('resolve'), log: b.log }),
  ]);
  // A loser is redelivered, as the queue would: it re-reads and finds nothing left to do.
  for (const r of results) {
    if (r.status === 'rejected') {
      assert.equal((r.reason as Error).name, 'ConflictError');
      assert.equal((r.reason as { kind?: string }).kind, 'transient', 'a lost race is transient');
      const again = await runResolveOnce(item, { kube: stepKube('resolve'), log: a.log });
      assert.equal(again.writes, 0);
    }
  }
  const count = await controlPlaneRequests(mark);
  t.diagnostic(`status writes: ${count.ok} ok, ${count.conflicts} conflicts (409) from the race`);
  assert.deepEqual(count.okManagers, ['aicr-resolve', 'aicr-status-summary']);
  assert.equal(count.conflicts, results.filter((r) => r.status === 'rejected').length);
  const rt = await getRuntime();
  const types = (rt?.status?.conditions ?? []).map((c) => c.type).sort();
  assert.deepEqual(types, ['Ready', 'Reconciling', 'Resolved', 'Stalled'], 'a conflict adds no condition');
  assert.equal(condition(rt, 'Resolved')?.reason, 'AICRVersionMismatch', 'the one write is the settled answer of the step');
});

test('KROP-4 a conflict is retried through the queue, logged, and leaves one write (OBS-2)', async () => {
  const mark = auditMark();
  const { log, records } = captureLogger();
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 20 });
  const stale = await getRuntime();
  assert.ok(stale);
  // A write that lands between the step's read and its write: the step's precondition fails.
  const kube = stepKube('resolve');
  let raced = false;
  const racing: KubePort = Object.assign(Object.create(kube) as KubePort, {
    get: async <T>(kind: Kind<T>, name: string, namespace?: string): Promise<T | undefined> => {
      const seen = await kube.get(kind, name, namespace);
      if (!raced && seen) {
        raced = true;
        await runResolveOnce(item, { kube: stepKube('resolve'), log });
      }
      return seen;
    },
  });
  queue.consume(async (m) => {
    await dispatchAll(m, dispatchDeps(racing, log, queue));
  });
  await queue.send({ step: 'resolve', group: runtimeGroup(item.runtime.uid), dedupId: 'x', body: encodeWorkItem(item) });
  await queue.idle();
  queue.stop();
  const count = await controlPlaneRequests(mark);
  assert.deepEqual(count.okManagers, ['aicr-resolve', 'aicr-status-summary'], 'the racing run wrote; the retry found nothing to do');
  assert.equal(count.conflicts, 1);
  const failed = records().find((r) => r['message'] === 'step failed');
  assert.equal(failed?.['outcome'], 'retry-now');
  assert.equal(failed?.['runtimeUID'], item.runtime.uid);
  assert.equal(queue.deadLetters.length, 0);
});

test('KROP-4 a no-op reconcile makes zero writes', async () => {
  const { log } = captureLogger();
  const deps = { kube: stepKube('resolve'), log };
  assert.equal((await runResolveOnce(item, deps)).writes, 2);
  const mark = auditMark();
  assert.equal((await runResolveOnce(item, deps)).writes, 0);
  const count = await controlPlaneRequests(mark);
  assert.equal(count.ok + count.conflicts + count.otherWrites.length, 0);
  assert.equal(count.reads, 2, 'the runtime and the configuration, and nothing else');
});

// KROP-4: one writer per runtime. A change delivered twice, or two workers on the same
// runtime at once, make exactly one status write (the step's conditions with the summary), counted by the API
// server's audit log; a no-op reconcile makes none. OBS-2: the losing worker's conflict is
// only logged and retried, never turned into a condition, and while an API server error keeps
// failing a step its conditions keep their last values, with no Event, until a retry succeeds.
import { test, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { fromKubeError } from '../../shared/kube/errors.ts';
import { type Kind, KIND } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { EmbeddedQueue } from '../../shared/queue/embedded.ts';
import { encodeWorkItem, runtimeGroup, type WorkItem } from '../../shared/queue/workItem.ts';
import { dispatchAll, dispatchDeps, resolveItem, runResolveOnce } from '../../harness/steps.ts';
import { auditMark } from '../../harness/audit.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { controlPlaneRequests } from '../helpers/statusWrites.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

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

test('KROP-4 a change delivered twice makes exactly one status write', async (t) => {
  const mark = auditMark();
  const { log } = captureLogger();
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 20 });
  const deps = dispatchDeps(stepKube('resolve'), log, queue);
  queue.consume(async (m) => {
    await dispatchAll(m, deps);
  });
  // At-least-once delivery: the same change arrives as two messages (distinct IDs get past deduplication).
  for (const id of ['first', 'second'])
    await queue.send({
      step: 'resolve',
      group: runtimeGroup(item.runtime.uid),
      dedupId: id,
      body: encodeWorkItem(item),
    });
  await queue.idle();
  queue.stop();
  const count = await controlPlaneRequests(mark);
  t.diagnostic(`status writes: ${count.ok} ok, ${count.conflicts} conflicts; reads: ${count.reads}`);
  assert.deepEqual(count.okManagers, ['aicr-resolve']);
  // Besides the status, only the one Event of Resolved's transition (COND-4).
  assert.deepEqual(
    count.otherWrites.map((e) => `${e.verb} ${e.objectRef?.resource ?? ''}`),
    ['create events'],
  );
});

/**
 * The step's port for one of `n` racing workers: its first read of the runtime waits until every
 * worker has read it, so all of them decide on the same resourceVersion and their writes collide.
 */
function racingWorkers(n: number): KubePort[] {
  const kube = stepKube('resolve');
  let arrived = 0;
  let release: () => void = () => undefined;
  const allRead = new Promise<void>((r) => {
    release = r;
  });
  return Array.from({ length: n }, () => {
    let waited = false;
    return Object.assign(Object.create(kube) as KubePort, {
      get: async <T>(kind: Kind<T>, name: string, namespace?: string): Promise<T | undefined> => {
        const seen = await kube.get(kind, name, namespace);
        if (!waited && (kind as unknown) === KIND.clusterRuntime) {
          waited = true;
          arrived += 1;
          if (arrived === n) release();
          await allRead;
        }
        return seen;
      },
    });
  });
}

test('KROP-4 two workers racing on one runtime make exactly one status write (OBS-2)', async (t) => {
  const mark = auditMark();
  const a = captureLogger();
  const b = captureLogger();
  const [first, second] = racingWorkers(2);
  assert.ok(first && second);
  const results = await Promise.allSettled([
    runResolveOnce(item, { kube: first, log: a.log }),
    runResolveOnce(item, { kube: second, log: b.log }),
  ]);
  // Both read the same version before either wrote: exactly one loses, with a transient conflict.
  const lost = results.filter((r) => r.status === 'rejected');
  assert.equal(lost.length, 1, `exactly one worker loses the race: ${JSON.stringify(results.map((r) => r.status))}`);
  assert.equal((lost[0]?.reason as Error).name, 'ConflictError');
  assert.equal((lost[0]?.reason as { kind?: string }).kind, 'transient', 'a lost race is transient');
  // The loser is redelivered, as the queue would: it re-reads and finds nothing left to do.
  const again = await runResolveOnce(item, { kube: stepKube('resolve'), log: a.log });
  assert.equal(again.writes, 0);
  const count = await controlPlaneRequests(mark);
  t.diagnostic(`status writes: ${count.ok} ok, ${count.conflicts} conflicts (409) from the race`);
  assert.deepEqual(count.okManagers, ['aicr-resolve']);
  assert.equal(count.conflicts, 1, "the API server refused the loser's write with 409");
  const rt = await getRuntime();
  const types = (rt?.status?.conditions ?? []).map((c) => c.type).sort();
  assert.deepEqual(types, ['Ready', 'Reconciling', 'Resolved', 'Stalled'], 'a conflict adds no condition');
  assert.equal(
    condition(rt, 'Resolved')?.reason,
    'AICRVersionMismatch',
    'the one write is the settled answer of the step',
  );
});

test('KROP-4 a conflict is retried at once in the same delivery, logged, and leaves one write (OBS-2)', async () => {
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
  await queue.send({
    step: 'resolve',
    group: runtimeGroup(item.runtime.uid),
    dedupId: 'x',
    body: encodeWorkItem(item),
  });
  await queue.idle();
  queue.stop();
  const count = await controlPlaneRequests(mark);
  assert.deepEqual(count.okManagers, ['aicr-resolve'], 'the racing run wrote; the retry found nothing to do');
  assert.equal(count.conflicts, 1);
  // The lost race costs a re-read and a second decision, not a redelivery.
  const rerun = records().find((r) => r['message'] === 'write conflict; running the step again at once');
  assert.equal(rerun?.['rerun'], 1);
  assert.equal(rerun?.['runtimeUID'], item.runtime.uid);
  assert.equal(records().filter((r) => r['message'] === 'step failed').length, 0, 'no failure reached the queue');
  assert.equal(queue.deadLetters.length, 0);
});

test('KROP-4 a no-op reconcile makes zero writes', async () => {
  const { log } = captureLogger();
  const deps = { kube: stepKube('resolve'), log };
  assert.equal((await runResolveOnce(item, deps)).writes, 1);
  const mark = auditMark();
  assert.equal((await runResolveOnce(item, deps)).writes, 0);
  const count = await controlPlaneRequests(mark);
  assert.equal(count.ok + count.conflicts + count.otherWrites.length, 0);
  assert.equal(count.reads, 2, 'the runtime and the configuration, and nothing else');
});

/** The step's port, with the configuration read failing as an API server in trouble answers (503) while `failing()` holds. */
function unavailableConfiguration(failing: () => boolean, calls: { n: number }): KubePort {
  const kube = stepKube('resolve');
  return Object.assign(Object.create(kube) as KubePort, {
    get: async <T>(kind: Kind<T>, name: string, namespace?: string): Promise<T | undefined> => {
      if ((kind as unknown) === KIND.configMap && failing()) {
        calls.n += 1;
        // What the adapter makes of the server's answer, as for a real 503.
        throw fromKubeError({ code: 503, body: { reason: 'ServiceUnavailable' } });
      }
      return kube.get(kind, name, namespace);
    },
  });
}

test('OBS-2 while an API server error fails the step, the conditions keep their last values and no Event is recorded; the retry that succeeds writes the new answer', async () => {
  await applyConfiguration();
  const { log, records } = captureLogger();
  assert.equal((await runResolveOnce(item, { kube: stepKube('resolve'), log })).writes, 1);
  const before = (await getRuntime())?.status?.conditions ?? [];
  assert.match(condition(await getRuntime(), 'Resolved')?.message ?? '', /v0\.0\.1/);
  // A spec change the step would answer with a new message, met by 503s for a while.
  let failing = true;
  const calls = { n: 0 };
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 20 });
  queue.consume(async (m) => {
    await dispatchAll(
      m,
      dispatchDeps(
        unavailableConfiguration(() => failing, calls),
        log,
        queue,
        { ...SCALED_TIMINGS, backoffBaseMs: 200, backoffCapMs: 400 },
      ),
    );
  });
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"aicrVersion":"v0.0.2"}}');
  const mark = auditMark();
  await queue.send({
    step: 'resolve',
    group: runtimeGroup(item.runtime.uid),
    dedupId: 'obs2',
    body: encodeWorkItem(item),
  });
  await waitFor('three failed attempts', async () => (calls.n >= 3 ? true : undefined), 20_000);
  assert.deepEqual(
    (await getRuntime())?.status?.conditions,
    before,
    'every condition as it was, transition times and generations too',
  );
  const during = await controlPlaneRequests(mark);
  assert.equal(during.ok, 0, 'no status write while it fails');
  assert.deepEqual(during.otherWrites, [], 'no Event, nothing else written');
  const failed = records().filter((r) => r['message'] === 'step failed');
  assert.ok(
    failed.length >= 3 && failed.every((r) => r['outcome'] === 'retry-after'),
    `each failure is logged and retried: ${JSON.stringify(failed)}`,
  );
  failing = false;
  await waitFor(
    'the retry succeeds',
    async () => (/v0\.0\.2/.test(condition(await getRuntime(), 'Resolved')?.message ?? '') ? true : undefined),
    20_000,
  );
  await queue.idle();
  queue.stop();
  assert.equal(queue.deadLetters.length, 0);
});

import assert from 'node:assert/strict';
import test from 'node:test';
import { pooled } from '../../shared/steps/resolve/pooled.ts';

type Done = { readonly ok: true; readonly n: number } | { readonly ok: false; readonly n: number };

/** A task that waits for the test to release it, so the test decides the order in which work ends. */
function gated(): {
  task: (n: number) => Promise<Done>;
  started: number[];
  release: (n: number, ok?: boolean) => void;
} {
  const started: number[] = [];
  const gates = new Map<number, (d: Done) => void>();
  return {
    started,
    task: (n) =>
      new Promise<Done>((resolve) => {
        started.push(n);
        gates.set(n, resolve);
      }),
    release: (n, ok = true) => gates.get(n)?.(ok ? { ok: true, n } : { ok: false, n }),
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test("a pool keeps at most its limit in flight, starts the next as soon as one ends, and answers in the items' order", async () => {
  const g = gated();
  const all = pooled([0, 1, 2, 3, 4], 2, g.task);
  await tick();
  assert.deepEqual(g.started, [0, 1]);
  g.release(1);
  await tick();
  assert.deepEqual(g.started, [0, 1, 2], 'the slot that freed takes the next item while item 0 still runs');
  for (const n of [0, 2, 3, 4]) {
    g.release(n);
    await tick();
  }
  const done = await all;
  assert.ok(done.ok);
  assert.deepEqual(
    done.answers.map((d) => d.n),
    [0, 1, 2, 3, 4],
  );
});

test("after a failure no further item starts; the pool answers once the ones in flight finish, with the first failure in the items' order", async () => {
  const g = gated();
  let settled = false;
  const all = pooled([0, 1, 2, 3], 2, g.task).then((d) => ((settled = true), d));
  await tick();
  g.release(1, false);
  await tick();
  assert.deepEqual(g.started, [0, 1], 'nothing starts after the failure');
  assert.equal(settled, false, 'item 0 is still in flight');
  g.release(0, false);
  assert.deepEqual(await all, { ok: false, n: 0 }, "the earlier item's failure, though it came later");
  assert.deepEqual(g.started, [0, 1]);
});

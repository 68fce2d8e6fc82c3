import assert from 'node:assert/strict';
import test from 'node:test';
import { pooled } from '../../shared/steps/resolve/pooled.ts';

interface Done {
  readonly ok: boolean;
  readonly n: number;
}

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
    release: (n, ok = true) => gates.get(n)?.({ ok, n }),
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
  assert.deepEqual(
    (await all).map((d) => d?.n),
    [0, 1, 2, 3, 4],
  );
});

test('after a failure no further item starts; the ones in flight finish and the rest stay unanswered', async () => {
  const g = gated();
  const all = pooled([0, 1, 2, 3], 2, g.task);
  await tick();
  g.release(0, false);
  await tick();
  assert.deepEqual(g.started, [0, 1], 'nothing starts after the failure');
  g.release(1);
  const done = await all;
  assert.deepEqual(
    done.map((d) => d?.ok),
    [false, true, undefined, undefined],
  );
});

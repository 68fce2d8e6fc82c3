// A runtime the forwarder saw deleted leaves no step anything to do: its rollouts and snapshots
// going with it, or a change to it that was still waiting to go out, are not sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoneRuntimes } from '../../shared/forwarder/goneRuntimes.ts';
import { ROLLOUT_WATCH, RUNTIME_WATCH } from '../../shared/forwarder/watched.ts';
import type { Watchable, WatchedKind } from '../../shared/forwarder/watchedKind.ts';
import { forwardBriefly } from '../helpers/forwardBriefly.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type ReplayedEvent, replayKube } from '../helpers/watchOnlyKube.ts';

type Event = ReplayedEvent & { readonly object: Watchable };

const runtime = (uid: string, generation: number, rv: number): Watchable =>
  ({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid, resourceVersion: String(rv), generation },
    spec: { aicrVersion: `v0.${generation}.0` },
  }) as Watchable;

const rollout = (name: string, runtimeUID: string, rv: number): Watchable =>
  ({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'RuntimeRollout',
    metadata: { name, uid: `r-${name}`, resourceVersion: String(rv), generation: 1 },
    spec: { runtimeUID },
  }) as Watchable;

async function forward(
  watched: WatchedKind<Watchable>,
  events: readonly Event[],
  gone: GoneRuntimes,
  coalesceMs = 0,
): Promise<string[]> {
  const sent = await forwardBriefly(watched, { kube: replayKube(events), coalesceMs, gone });
  return sent.map((item) => `${item.runtime.uid} ${item.step}`);
}

test('the rollouts of a runtime seen deleted going with it wake no step; those of a live runtime still do', async () => {
  const gone = new GoneRuntimes();
  await forward(RUNTIME_WATCH as WatchedKind<Watchable>, [{ type: 'DELETED', object: runtime('u-1', 1, 10) }], gone);
  assert.equal(gone.has('u-1'), true);
  const sent = await forward(
    ROLLOUT_WATCH as WatchedKind<Watchable>,
    [
      { type: 'DELETED', object: rollout('a', 'u-1', 11) },
      { type: 'DELETED', object: rollout('b', 'u-2', 12) },
    ],
    gone,
  );
  assert.deepEqual(sent.sort(), ['u-2 drift-check', 'u-2 rollout']);
});

test('a change still waiting to go out when its runtime is deleted is not sent', async () => {
  const gone = new GoneRuntimes();
  const sent = await forward(
    RUNTIME_WATCH as WatchedKind<Watchable>,
    [
      { type: 'MODIFIED', object: runtime('u-1', 2, 10) },
      // Within the coalescing interval of the first: it waits, and the deletion comes first.
      { type: 'MODIFIED', object: runtime('u-1', 3, 11) },
      { type: 'DELETED', object: runtime('u-1', 3, 12) },
    ],
    gone,
    40,
  );
  const steps = STEP_TABLE.filter((r) => (r.wakesOn as readonly string[]).includes('runtime-change')).length;
  assert.equal(sent.length, steps, `only the first change goes out, to each of its ${steps} steps: ${sent.join('; ')}`);
});

// Which rollouts the record keeps (SEC-11): the newest `keep`, whichever runtime made them, so the
// record of who approved what outlives a deleted runtime and reads on across the runtimes that
// follow it. A rollout that has not ended is never retired, however old: it may still move.
import type { RolloutObject } from './rolloutObject.ts';

const newestFirst = (a: RolloutObject, b: RolloutObject): number =>
  (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') ||
  b.metadata.name.localeCompare(a.metadata.name);

/** The ended rollouts beyond the newest `keep`, oldest last. */
export function rolloutsToRetire(records: readonly RolloutObject[], keep: number): RolloutObject[] {
  return [...records]
    .sort(newestFirst)
    .slice(keep)
    .filter((r) => (r.status?.outcome ?? '') !== '');
}

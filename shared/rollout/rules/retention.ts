// Which rollouts the record keeps (SEC-11): the newest `keep`, whichever runtime made them, so the
// record of who approved what outlives a deleted runtime and reads on across the runtimes that
// follow it. A rollout that has not ended is never retired, however old: it may still move.
import { type RolloutObject, byCreation } from './rolloutObject.ts';

/** The ended rollouts beyond the newest `keep`, oldest last. */
export function rolloutsToRetire(records: readonly RolloutObject[], keep: number): RolloutObject[] {
  return [...records]
    .sort((a, b) => byCreation(b, a))
    .slice(keep)
    .filter((r) => (r.status?.outcome ?? '') !== '');
}

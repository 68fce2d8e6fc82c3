// A status apply that lost its race for the runtime's resourceVersion. Every step a runtime change
// wakes reads the same version and writes at once, so all but the first lose, and running each
// loser again costs a whole look. Most of the time what moved in between is only other steps'
// status, which the loser's decision stands beside: server-side apply merges each manager's own
// fields, and a step that acts on another's status is woken again by the forwarder when that status
// moves. So the loser reads the runtime once more and applies the same decision on it. When what
// the step decided from moved (the spec, the runtime's metadata, or its own status: a second worker
// of the same step), the conflict stands and the step runs again (ADR 0003).
import { ConflictError } from '../errors.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';

/** Reads after a lost race before the conflict is left to a rerun of the whole step. */
export const RACE_REREADS = 3;

/**
 * What of the runtime a step's decision rests on besides its own status: its identity, spec and
 * metadata. Not its finalizers: the rollout step adds its own to every new runtime, which would
 * make every other step's first write lose, and only the rollout step reads them.
 */
function groundsOf(runtime: RuntimeObject): string {
  const m = runtime.metadata;
  return JSON.stringify([m.uid, m.generation ?? 0, m.deletionTimestamp ?? null, m.annotations ?? {}, m.labels ?? {}]);
}

/**
 * Runs `write` on `read`; when it loses a race that moved neither the runtime's grounds nor
 * `mine` (the status only this writer holds), runs it again on the runtime as it now is.
 */
export async function applyThroughRaces<T>(
  kube: KubePort,
  read: RuntimeObject,
  mine: (runtime: RuntimeObject) => unknown,
  write: (runtime: RuntimeObject) => Promise<T>,
): Promise<T> {
  const grounds = groundsOf(read);
  const own = JSON.stringify(mine(read) ?? null);
  let runtime = read;
  for (let reread = 0; ; reread++) {
    try {
      return await write(runtime);
    } catch (err) {
      if (!(err instanceof ConflictError) || reread >= RACE_REREADS) throw err;
      const now = await kube.get(KIND.clusterRuntime, read.metadata.name);
      if (!now || groundsOf(now) !== grounds || JSON.stringify(mine(now) ?? null) !== own) throw err;
      runtime = now;
    }
  }
}

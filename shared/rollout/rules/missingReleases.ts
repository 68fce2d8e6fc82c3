// Releases of the active plan whose Application is gone, while no rollout is in progress, and
// what may be done about each (ROL-8, ROL-5). Deleting an Application without Argo CD's resources
// finalizer leaves its resources running, so writing it again from the active plan changes
// nothing that runs: the drift check does that without approval. Not so for a release an
// unsuccessful rollout already moved to its target plan: writing it from the active plan would
// roll it back, which needs approval, so it is only reported. A release such a rollout removed
// stays removed; the rollout's own outcome says so.
import type { GenericObject } from '../../kube/kinds.ts';
import type { Release } from '../../plans/release.ts';
import type { RolloutObject } from './rolloutObject.ts';

export interface MovedRelease {
  readonly release: string;
  readonly rollout: string;
  readonly plan: string;
}

export interface MissingReleases {
  /** Written again from the active plan, without approval. */
  readonly recreate: readonly Release[];
  /** Left alone: the runtime stalls with MovedReleaseMissing. */
  readonly moved: readonly MovedRelease[];
}

/** Releases the last rollout started and did not see through: moved (or on their way) to its target. */
function touchedByLast(rollouts: readonly RolloutObject[]): {
  rollout?: RolloutObject;
  moved: ReadonlySet<string>;
  removed: ReadonlySet<string>;
} {
  const last = rollouts.at(-1);
  const outcome = last?.status?.outcome;
  if (!last || outcome === undefined || outcome === 'Succeeded') return { moved: new Set(), removed: new Set() };
  const started = new Set((last.status?.steps ?? []).filter((s) => s.startedAt !== undefined).map((s) => s.release));
  const removal = new Set(last.spec.steps.filter((s) => s.action === 'Remove').map((s) => s.release));
  return {
    rollout: last,
    moved: new Set([...started].filter((r) => !removal.has(r))),
    removed: new Set([...started].filter((r) => removal.has(r))),
  };
}

/**
 * Whether any rollout of the runtime has not ended: then a missing Application is the rollout's
 * drift, not this check's.
 */
export function rolloutInProgress(rollouts: readonly RolloutObject[]): RolloutObject | undefined {
  return rollouts.find((r) => r.status?.outcome === undefined);
}

export function missingReleases(
  apps: readonly GenericObject[],
  active: readonly Release[],
  rollouts: readonly RolloutObject[],
): MissingReleases {
  const present = new Set(apps.map((a) => a.metadata.name));
  const touched = touchedByLast(rollouts);
  const gone = active.filter((r) => !present.has(r.name) && !touched.removed.has(r.name));
  const last = touched.rollout;
  return {
    recreate: gone.filter((r) => !touched.moved.has(r.name)),
    moved: last
      ? gone
          .filter((r) => touched.moved.has(r.name))
          .map((r) => ({ release: r.name, rollout: last.metadata.name, plan: last.spec.toPlan }))
      : [],
  };
}

// The end of a deletion with deletionPolicy Delete: once the removal rollout succeeded, or nothing
// is left to remove, the cleanup finalizer comes off and the API server removes the runtime. A
// removal that failed, expired or was revoked keeps the finalizer, and the runtime shows
// RemovalFailed until kubectl aicr retry (endedBadly in rules/released.ts).
import { EVENT_REASON } from '../../events/recorder.ts';
import type { StepContext } from '../../look/contract.ts';
import { releaseCleanup } from '../io/cleanupFinalizer.ts';
import { noteRollout } from '../io/record.ts';
import type { RolloutReport } from '../rules/released.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';

export async function dropCleanup(ctx: StepContext): Promise<RolloutReport> {
  await releaseCleanup(ctx.kube, ctx.runtime);
  return {};
}

/** The removal rollout succeeded: the runtime goes, so its conditions are not written. */
export async function removed(ctx: StepContext, r: RolloutObject): Promise<RolloutReport> {
  await releaseCleanup(ctx.kube, ctx.runtime);
  await noteRollout(ctx, r, {
    type: 'Normal',
    reason: EVENT_REASON.runtimeRemoved,
    message: `every release was removed by ${r.metadata.name}; the cleanup finalizer is off and the runtime goes`,
  });
  return {};
}

// The end of a deletion with deletionPolicy Delete: once the removal rollout succeeded, or nothing
// is left to remove, the cleanup finalizer comes off and the API server removes the runtime. A
// removal that failed, expired or was revoked keeps the finalizer, and the runtime shows
// RemovalFailed until kubectl aicr retry.
import { EVENT_REASON } from '../../events/recorder.ts';
import { releaseCleanup } from '../io/cleanupFinalizer.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { noteRollout } from '../io/record.ts';
import type { RolloutReport } from '../rules/released.ts';
import { removalFailed } from './reportState.ts';

export async function dropCleanup(ctx: StepContext): Promise<RolloutReport> {
  await releaseCleanup(ctx.kube, ctx.runtime);
  return {};
}

/** What a look at the removal rollout means for the deletion. */
export async function removalResult(ctx: StepContext, r: RolloutObject, report: RolloutReport): Promise<RolloutReport> {
  if (report.ended === 'Succeeded') {
    await releaseCleanup(ctx.kube, ctx.runtime);
    await noteRollout(ctx, r, {
      type: 'Normal',
      reason: EVENT_REASON.runtimeRemoved,
      message: `every release was removed by ${r.metadata.name}; the cleanup finalizer is off and the runtime goes`,
    });
    return {};
  }
  const said = report.conditions?.[0]?.message;
  if ((report.ended === 'Failed' || report.ended === 'Expired' || report.ended === 'Revoked') && said)
    return removalFailed(r, said);
  return report;
}

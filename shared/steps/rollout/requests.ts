// A person's requests on a rollout (kubectl aicr revoke, kubectl aicr retry), acted on by the
// rollout step. A revocation ends an unfinished rollout Revoked where it stands: nothing more is
// written to Argo CD and whatever it moved stays at its target plan. A retry of an unfinished
// rollout ends it Superseded; the caller then creates a new rollout to the same target from the
// current state, which needs its own approval.
import { EVENT_REASON } from '../../events/recorder.ts';
import { type RolloutObject, rolloutConditions, rolloutState, writeRolloutStatus } from '../../rollouts/objects.ts';
import type { StepContext, StepReport } from '../types.ts';
import { moveOf, noteRollout, released } from './report.ts';

/** True when a person asked for this rollout to run again and no newer rollout to its target answered it. */
export function retryRequested(r: RolloutObject | undefined): boolean {
  return r?.spec.retry !== undefined;
}

export async function revoke(ctx: StepContext, r: RolloutObject): Promise<StepReport> {
  const revocation = r.spec.revocation;
  const why = revocation?.reason ? `: ${revocation.reason}` : '';
  const moved = (r.status?.steps ?? []).some((s) => s.startedAt !== undefined);
  const where = moved ? `releases it already moved stay at plan ${r.spec.toPlan}` : 'nothing had been written to Argo CD';
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) was revoked by ${revocation?.revokedBy ?? 'someone'} at ${revocation?.revokedAt ?? 'an unknown time'}${why}; nothing more is written and ${where}. Retry it with kubectl aicr retry ${r.metadata.name}, or change the target plan`;
  const conditions = rolloutConditions(r, rolloutState('stalled', 'RolloutRevoked', message), ctx.now());
  await writeRolloutStatus(ctx.kube, r, { ...r.status, observedGeneration: r.metadata.generation ?? 0, conditions, outcome: 'Revoked' }, ctx.log);
  await noteRollout(ctx, r, { type: 'Warning', reason: EVENT_REASON.rolloutRevoked, message });
  return released('False', 'RolloutRevoked', message);
}

/** Ends an unfinished rollout whose retry was requested; the new rollout is the caller's to create. */
export async function supersedeForRetry(ctx: StepContext, r: RolloutObject): Promise<void> {
  const by = r.spec.retry;
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) is superseded: ${by?.requestedBy ?? 'someone'} asked for a retry at ${by?.requestedAt ?? 'an unknown time'}, so a new rollout from the current state replaces it and needs its own approval`;
  const conditions = rolloutConditions(r, rolloutState('stalled', 'Superseded', message), ctx.now());
  await writeRolloutStatus(ctx.kube, r, { ...r.status, observedGeneration: r.metadata.generation ?? 0, conditions, outcome: 'Superseded' }, ctx.log);
  await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.rolloutSuperseded, message });
}

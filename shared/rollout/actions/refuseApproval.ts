// An approval the control plane does not accept (APR-2, SEC-7): recorded as refused with its
// reason. Drift since creation supersedes the rollout, so a new one from the current state is made;
// any other refusal keeps it waiting with the refusal in its status, final for that approval: the
// approver replaces it with a new one, which admission lets them do. No control-plane identity
// writes a rollout's spec after creating it.
import { EVENT_REASON } from '../../events/recorder.ts';
import type { Judgement } from '../rules/approval.ts';
import { type RolloutObject, approvedCondition } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { endRollout, noteRollout } from '../io/record.ts';
import { type RolloutReport, released } from '../rules/released.ts';
import { awaitApproval, pendingSteps } from './awaitApproval.ts';

export async function refuseApproval(
  ctx: StepContext,
  r: RolloutObject,
  j: Extract<Judgement, { state: 'Refused' }>,
): Promise<RolloutReport> {
  const why = j.recorded ? j.message : `approval by ${j.approvedBy} refused: ${j.message}`;
  const approval = {
    state: 'Refused' as const,
    approvedBy: j.approvedBy,
    approvedAt: j.approvedAt,
    reason: j.reason,
    message: why,
  };
  if (j.recorded) return await awaitApproval(ctx, r, { why, approval });
  await noteRollout(ctx, r, { type: 'Warning', reason: EVENT_REASON.approvalRefused, message: why });
  if (j.supersede) {
    await endRollout(ctx, r, {
      outcome: 'Superseded',
      message: why,
      keep: { approval, steps: pendingSteps(r) },
      approved: approvedCondition('False', j.reason, why),
      event: false,
    });
    return released('False', 'AwaitingApproval', `${why}. A new rollout is being created`, { recheckAfterMs: 0 });
  }
  return await awaitApproval(ctx, r, { why, approval });
}

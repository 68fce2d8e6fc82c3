// A rollout that needs an approver and has none that counts: its status says how to approve it
// and until when; nothing is written to Argo CD (APR-1, COND-3).
import type { RuntimeRolloutStatus } from '../../api/runtimeRollout.ts';
import { type RolloutObject, approvedCondition, rolloutConditions, rolloutState } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { writeStatus } from '../io/record.ts';
import { type RolloutReport, released, stepSummary } from '../rules/released.ts';
import { namesOf } from '../rules/releaseWords.ts';
import { awaitingApproval } from '../../status/reasonMessages.released.ts';

/**
 * Longest single wait for a deadline: a timer beyond it is armed again on the next look. Node's
 * timers (local mode) cannot wait longer than about 24.8 days, and approvalTimeout may be 30.
 */
const MAX_RECHECK_MS = 24 * 3600 * 1000;

export function pendingSteps(r: RolloutObject): { release: string; state: 'Pending' }[] {
  return r.spec.steps.map((s) => ({ release: s.release, state: 'Pending' as const }));
}

/** The verdicts the steps carry, with the reason when they all share one. */
function verdicts(r: RolloutObject): string {
  const kinds = [...new Set(r.spec.steps.map((s) => s.verdict ?? 'unknown'))];
  const whys = [...new Set(r.spec.steps.map((s) => s.why).filter((w) => w !== undefined))];
  return `assessed ${kinds.join(', ')}${whys.length === 1 ? `: ${whys[0]}` : ''}`;
}

/** Just past the deadline, so the look that follows finds it passed. */
function untilDeadline(ctx: StepContext, r: RolloutObject): number {
  const deadline = Date.parse(r.spec.deadline ?? '') || Number.POSITIVE_INFINITY;
  return Math.min(MAX_RECHECK_MS, Math.max(0, deadline - ctx.now().getTime()) + 1_000);
}

export interface Refused {
  readonly why: string;
  readonly approval: NonNullable<RuntimeRolloutStatus['approval']>;
}

export async function awaitApproval(ctx: StepContext, r: RolloutObject, refused?: Refused): Promise<RolloutReport> {
  const message = awaitingApproval({
    ...namesOf(r),
    assessed: `${stepSummary(r)}, ${verdicts(r)}`,
    deadline: r.spec.deadline,
    refused: refused?.why,
  });
  const approved = refused
    ? approvedCondition('False', refused.approval.reason, refused.why)
    : approvedCondition('False', 'AwaitingApproval', 'no approval recorded yet');
  const conditions = rolloutConditions(r, rolloutState('waiting', 'AwaitingApproval', message, approved), ctx.now());
  const approval = refused?.approval ?? r.status?.approval;
  await writeStatus(ctx, r, { ...(approval ? { approval } : {}), conditions, steps: pendingSteps(r) });
  return released('False', 'AwaitingApproval', message, { recheckAfterMs: untilDeadline(ctx, r) });
}

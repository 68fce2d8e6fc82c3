// Following a rollout that waits or was approved: its deadline, the approval an approver
// recorded, and what the runtime's Released condition says about it. Nothing here writes to
// Argo CD: an unapproved rollout writes nothing (APR-1, COND-3); an approved one is executed (execute.ts).
import { CONDITION } from '../../api/constants.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import { KIND } from '../../kube/kinds.ts';
import { type Judgement, judgeApproval } from '../../rollouts/approval.ts';
import { approvedCondition, type RolloutObject, rolloutConditions, rolloutState, writeRolloutStatus } from '../../rollouts/objects.ts';
import type { Engine } from '../../rollouts/engine.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { StepContext, StepReport } from '../types.ts';
import { execute } from './execute.ts';
import { moveOf, noteRollout, released, stepSummary } from './report.ts';

/**
 * Longest single wait for a deadline: a timer beyond it is armed again on the next look. Node's
 * timers (local mode) cannot wait longer than about 24.8 days, and approvalTimeout may be 30.
 */
const MAX_RECHECK_MS = 24 * 3600 * 1000;

/** Just past the deadline, so the look that follows finds it passed. */
function untilDeadline(ctx: StepContext, deadline: number): number {
  return Math.min(MAX_RECHECK_MS, Math.max(0, deadline - ctx.now().getTime()) + 1_000);
}

export const APPROVE_HINT = (name: string): string => `kubectl aicr approve ${name}`;

function pendingSteps(r: RolloutObject): { release: string; state: 'Pending' }[] {
  return r.spec.steps.map((s) => ({ release: s.release, state: 'Pending' as const }));
}

/** The verdicts the steps carry, with the reason when they all share one. */
function verdicts(r: RolloutObject): string {
  const kinds = [...new Set(r.spec.steps.map((s) => s.verdict ?? 'unknown'))];
  const whys = [...new Set(r.spec.steps.map((s) => s.why).filter((w) => w !== undefined))];
  return `assessed ${kinds.join(', ')}${whys.length === 1 ? `: ${whys[0]}` : ''}`;
}

async function expire(ctx: StepContext, r: RolloutObject): Promise<StepReport> {
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) expired at ${r.spec.deadline} without an approval; nothing was written to Argo CD. Retry it with kubectl aicr retry ${r.metadata.name}, or change the target plan`;
  const conditions = rolloutConditions(r, rolloutState('stalled', 'RolloutExpired', message), ctx.now());
  await writeRolloutStatus(ctx.kube, r, { conditions, outcome: 'Expired', steps: pendingSteps(r) }, ctx.log);
  await noteRollout(ctx, r, { type: 'Warning', reason: EVENT_REASON.rolloutExpired, message });
  return released('False', 'RolloutExpired', message);
}

interface Refused {
  readonly why: string;
  readonly approval: NonNullable<NonNullable<RolloutObject['status']>['approval']>;
}

async function awaitApproval(ctx: StepContext, r: RolloutObject, deadline: number, refused?: Refused): Promise<StepReport> {
  const name = r.metadata.name;
  const lead = refused ? `${refused.why}. ` : '';
  const message = `${lead}rollout ${name} (${moveOf(r)}) needs an approver: ${stepSummary(r)}, ${verdicts(r)}. Nothing has been written. Approve it with ${APPROVE_HINT(name)} before ${r.spec.deadline}; unapproved, it ends Expired then`;
  const approved = refused ? approvedCondition('False', refused.approval.reason, refused.why) : approvedCondition('False', 'AwaitingApproval', 'no approval recorded yet');
  const conditions = rolloutConditions(r, rolloutState('waiting', 'AwaitingApproval', message, approved), ctx.now());
  const approval = refused?.approval ?? r.status?.approval;
  await writeRolloutStatus(ctx.kube, r, { ...(approval ? { approval } : {}), conditions, steps: pendingSteps(r) }, ctx.log);
  return released('False', 'AwaitingApproval', message, { recheckAfterMs: untilDeadline(ctx, deadline) });
}

/** What one look saw: the digest of the owned Applications, the Applications themselves and Argo CD's state. */
export interface FollowLook {
  readonly inventory: string;
  readonly apps: readonly GenericObject[];
  readonly engine: Engine;
}

async function accept(ctx: StepContext, r: RolloutObject, j: Extract<Judgement, { state: 'Accepted' }>, look: FollowLook): Promise<StepReport> {
  const approval = { state: 'Accepted' as const, approvedBy: j.approvedBy, approvedAt: j.approvedAt, reason: 'Approved', message: j.message };
  if (r.status?.approval?.approvedAt !== j.approvedAt || r.status.approval.state !== 'Accepted') {
    await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.approvalAccepted, message: j.message });
  }
  return execute(ctx, r, { condition: approvedCondition('True', 'Approved', j.message), approval }, look);
}

async function refuse(ctx: StepContext, r: RolloutObject, j: Extract<Judgement, { state: 'Refused' }>, deadline: number): Promise<StepReport> {
  const why = `approval by ${j.approvedBy} refused: ${j.message}`;
  const approval = { state: 'Refused' as const, approvedBy: j.approvedBy, approvedAt: j.approvedAt, reason: j.reason, message: why };
  await noteRollout(ctx, r, { type: 'Warning', reason: EVENT_REASON.approvalRefused, message: why });
  if (j.supersede) {
    const conditions = rolloutConditions(r, rolloutState('stalled', 'Superseded', why, approvedCondition('False', j.reason, why)), ctx.now());
    await writeRolloutStatus(ctx.kube, r, { approval, conditions, outcome: 'Superseded', steps: pendingSteps(r) }, ctx.log);
    return released('False', 'AwaitingApproval', `${why}. A new rollout is being created`, { recheckAfterMs: 0 });
  }
  const report = await awaitApproval(ctx, r, deadline, { why, approval });
  // Cleared after the status (whose write is conditional on the version read), so a fresh
  // approval can be recorded once the cause is gone.
  await ctx.kube.patch(KIND.runtimeRollout, r.metadata.name, undefined, { spec: { approval: null } });
  return report;
}

/** APR-1 holds only steps not assessed safe: a rollout aicr upgrade-check assessed safe throughout needs no approver. */
function allSafe(r: RolloutObject): boolean {
  return r.spec.steps.length > 0 && r.spec.steps.every((s) => s.verdict === 'safe');
}

function proceedSafe(ctx: StepContext, r: RolloutObject, look: FollowLook): Promise<StepReport> {
  return execute(ctx, r, { condition: approvedCondition('True', 'AssessedSafe', 'every step was assessed safe, so no approval is needed') }, look);
}

function staleCredentials(ctx: StepContext): string | undefined {
  const c = ctx.runtime.status?.conditions?.find((x) => x.type === CONDITION.engineAvailable);
  return c?.reason === 'RegistryCredentialsStale' ? c.message : undefined;
}

/** One look at a rollout that has not ended. */
export async function follow(ctx: StepContext, r: RolloutObject, look: FollowLook): Promise<StepReport> {
  const { inventory } = look;
  if (allSafe(r) && !r.spec.approval) return proceedSafe(ctx, r, look);
  const deadline = Date.parse(r.spec.deadline ?? '') || Number.POSITIVE_INFINITY;
  const judged = judgeApproval({ rollout: r, inventory, staleCredentials: staleCredentials(ctx) });
  if (judged.state === 'Accepted') return accept(ctx, r, judged, look);
  if (judged.state === 'Refused') return refuse(ctx, r, judged, deadline);
  if (ctx.now().getTime() >= deadline) return expire(ctx, r);
  return awaitApproval(ctx, r, deadline);
}

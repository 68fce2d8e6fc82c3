// What the rollout step reports on the runtime: its Released condition, and the words it uses for a rollout.
import { CONDITION } from '../../api/constants.ts';
import type { RolloutObject } from './rolloutObject.ts';
import type { Reason } from '../../api/reasons.ts';
import type { StepReport } from '../../look/contract.ts';
import { removalFailed as removalFailedMessage } from '../../status/reasonMessages.released.ts';
import { planMissingTarget, planMissingUnreadable } from '../../status/reasonMessages.noRollout.ts';

/** What the rollout step reports: its Released condition, and when to look again. */
export type RolloutReport = StepReport;

export function released(
  status: 'True' | 'False',
  reason: Reason,
  message: string,
  extra: Omit<StepReport, 'conditions'> = {},
): StepReport {
  return { conditions: [{ type: CONDITION.released, status, reason, message }], ...extra };
}

/** The grid periodic looks are snapped to, as a share of their period. */
const LOOK_GRID_SHARE = 4;

/**
 * A look again after `periodMs` that only time asks for, snapped to the next point of a grid a
 * quarter of the period wide: the looks of one quarter share one timer (its key names the
 * instant), so a rollout whose steps take a second each arms a few timers while it runs, not one
 * per look that each wake it again later. The look comes at most a quarter of the period late.
 */
export function periodicLook(now: Date, periodMs: number): Required<Pick<StepReport, 'recheckAfterMs' | 'recheckKey'>> {
  return snappedLook(now, periodMs, Math.max(1, Math.floor(periodMs / LOOK_GRID_SHARE)), 'look');
}

/**
 * A look no sooner than `afterMs` from now, at the next point of a `gridMs` grid, keyed by that
 * instant: every look that lands on the same point shares one timer.
 */
export function snappedLook(
  now: Date,
  afterMs: number,
  gridMs: number,
  keyPrefix: string,
): Required<Pick<StepReport, 'recheckAfterMs' | 'recheckKey'>> {
  const due = Math.ceil((now.getTime() + afterMs) / gridMs) * gridMs;
  return { recheckAfterMs: due - now.getTime(), recheckKey: `${keyPrefix}-${new Date(due).toISOString()}` };
}

/** "3 steps (2 Install, 1 Upgrade)". */
export function stepSummary(r: RolloutObject): string {
  const counts = new Map<string, number>();
  for (const s of r.spec.steps) counts.set(s.action, (counts.get(s.action) ?? 0) + 1);
  const parts = [...counts.entries()].map(([a, n]) => `${n} ${a}`);
  return `${r.spec.steps.length} step${r.spec.steps.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}

export function moveOf(r: RolloutObject): string {
  if (r.spec.type === 'Remove') return `removal of every release of plan ${r.spec.toPlan}`;
  if (r.spec.type === 'Adopt') return `adoption of the releases of plan ${r.spec.toPlan}`;
  return `${r.spec.fromPlan ?? 'nothing'} → ${r.spec.toPlan}`;
}

/** Why no rollout can be made to, or carried on towards, a plan that is missing or does not read back. */
export function planMissing(
  name: string,
  read: { readonly state: 'missing' } | { readonly state: 'unreadable'; readonly problem: string },
): StepReport {
  if (read.state === 'missing') return released('False', 'PlanMissing', planMissingTarget(name));
  return released('False', 'PlanMissing', planMissingUnreadable(read.problem));
}

export function removalFailed(r: RolloutObject, message: string): StepReport {
  return released('False', 'RemovalFailed', removalFailedMessage(message, r.metadata.name));
}

/** A rollout that ended without success; a removal's end is the deletion's, which keeps its finalizer. */
export function endedBadly(r: RolloutObject, reason: Reason, message: string): StepReport {
  return r.spec.type === 'Remove' ? removalFailed(r, message) : released('False', reason, message);
}

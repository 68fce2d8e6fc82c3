// What the drift check reports: its one condition, and when it looks again.
import { CONDITION } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { parseDuration } from '../../api/duration.ts';
import type { Reason } from '../../api/reasons.ts';
import type { StepContext, StepReport } from '../../look/contract.ts';

export function consistent(status: 'True' | 'False', reason: Reason, message: string): StepReport {
  return { conditions: [{ type: CONDITION.inventoryConsistent, status, reason, message }] };
}

/**
 * The periodic look (drift.checkInterval). Keyed on the interval's slot, so every run within
 * one slot arms the same single timer: a storm of Application changes never multiplies them.
 */
export function nextLook(
  ctx: StepContext,
  configuration: Configuration,
): Pick<StepReport, 'recheckAfterMs' | 'recheckKey'> {
  const interval = parseDuration(configuration.drift.checkInterval) ?? 300_000;
  const now = ctx.now().getTime();
  const due = (Math.floor(now / interval) + 1) * interval;
  return { recheckAfterMs: due - now, recheckKey: `drift-${new Date(due).toISOString()}` };
}

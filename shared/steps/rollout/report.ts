// What the rollout step reports on the runtime, and the Events it records on both objects.
import { CONDITION, KINDS } from '../../api/constants.ts';
import { type EventNote, recordEvent } from '../../events/recorder.ts';
import type { RolloutObject } from '../../rollouts/objects.ts';
import type { Reason } from '../../status/reasons.ts';
import type { StepContext, StepReport } from '../types.ts';

export function released(status: 'True' | 'False', reason: Reason, message: string, extra: Omit<StepReport, 'conditions'> = {}): StepReport {
  return { conditions: [{ type: CONDITION.released, status, reason, message }], ...extra };
}

/** Records the note on the rollout, and on the runtime too, so `kubectl describe` of either shows it. */
export async function noteRollout(ctx: StepContext, r: RolloutObject, note: EventNote): Promise<void> {
  const base = { kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() };
  const about = { kind: KINDS.runtimeRollout.kind, name: r.metadata.name, uid: r.metadata.uid };
  await recordEvent({ ...base, about }, note);
  await recordEvent(base, { ...note, message: `${r.metadata.name}: ${note.message}` });
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

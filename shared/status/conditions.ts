// The one place conditions are built. lastTransitionTime moves only when a status flips, and
// every condition carries the generation it describes, as kstatus expects.
import type { Condition } from '../api/condition.ts';
import type { ConditionType } from '../api/constants.ts';

export interface DesiredCondition {
  readonly type: ConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** Desired conditions laid over the existing ones; types the step does not own are kept. */
export function mergeConditions(
  existing: readonly Condition[] | undefined,
  desired: readonly DesiredCondition[],
  generation: number,
  now: Date,
): Condition[] {
  const byType = new Map((existing ?? []).map((c) => [c.type, c] as const));
  for (const d of desired) {
    const prev = byType.get(d.type);
    const lastTransitionTime =
      prev && prev.status === d.status ? prev.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    byType.set(d.type, { ...d, lastTransitionTime, observedGeneration: generation });
  }
  return [...byType.values()];
}

/** True when both lists say the same thing (order and unknown extras aside). */
export function sameConditions(a: readonly Condition[] | undefined, b: readonly Condition[]): boolean {
  const left = a ?? [];
  if (left.length !== b.length) return false;
  return b.every((want) => {
    const have = left.find((c) => c.type === want.type);
    return (
      have !== undefined &&
      have.status === want.status &&
      have.reason === want.reason &&
      have.message === want.message &&
      have.lastTransitionTime === want.lastTransitionTime &&
      have.observedGeneration === want.observedGeneration
    );
  });
}

export function findCondition(list: readonly Condition[] | undefined, type: ConditionType): Condition | undefined {
  return list?.find((c) => c.type === type);
}

// The one place conditions are built. lastTransitionTime moves only when a status flips, every
// condition carries the generation it describes, and every message fits the API.
import type { Condition } from '../api/condition.ts';
import type { ConditionType } from '../api/constants.ts';
import { fitMessage } from './message.ts';

export interface DesiredCondition {
  readonly type: ConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

export function kubeTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The full conditions for `desired` (a runtime's or a rollout's), keeping each one's transition
 * time unless its status flips.
 */
export function buildConditions(
  existing: readonly Condition[] | undefined,
  desired: readonly (Omit<DesiredCondition, 'type'> & { readonly type: string })[],
  generation: number,
  now: Date,
): Condition[] {
  return desired.map((d) => {
    const prev = existing?.find((c) => c.type === d.type);
    const lastTransitionTime = prev && prev.status === d.status ? prev.lastTransitionTime : kubeTime(now);
    return { ...d, message: fitMessage(d.message), lastTransitionTime, observedGeneration: generation };
  });
}

function same(a: Condition, b: Condition): boolean {
  return (
    a.status === b.status &&
    a.reason === b.reason &&
    a.message === b.message &&
    a.lastTransitionTime === b.lastTransitionTime &&
    a.observedGeneration === b.observedGeneration
  );
}

/** True when `current`, restricted to `types`, says exactly what `want` says (order aside). */
export function sameConditionsOf(
  current: readonly Condition[] | undefined,
  want: readonly Condition[],
  types: readonly string[],
): boolean {
  const mine = (current ?? []).filter((c) => types.includes(c.type));
  if (mine.length !== want.length) return false;
  return want.every((w) => {
    const have = mine.find((c) => c.type === w.type);
    return have !== undefined && same(have, w);
  });
}

export function findCondition(list: readonly Condition[] | undefined, type: ConditionType): Condition | undefined {
  return list?.find((c) => c.type === type);
}

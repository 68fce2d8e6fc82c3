// RuntimeRollout objects as the rollout step reads them: parsed with the API's own schema,
// named by target plan and creation time, and the conditions they carry. The rollout
// step's writer (steps/rollout/record.ts) is the one place they are created and their status written.
import * as z from 'zod';
import type { ConditionSchema } from '../../api/condition.ts';
import {
  CONDITION,
  GROUP_VERSION,
  KINDS,
  LABEL,
  ROLLOUT_CONDITION,
  ROLLOUT_NAME_PREFIX,
  ROLLOUT_SCHEMA_VERSION,
} from '../../api/constants.ts';
import {
  type RuntimeRolloutSpec,
  RuntimeRolloutSpecSchema,
  RuntimeRolloutStatusSchema,
} from '../../api/runtimeRollout.ts';
import { ObjectMetaSchema } from '../../kube/kinds.ts';
import { buildConditions } from '../../status/conditions.ts';

const RolloutObjectSchema = z.looseObject({
  metadata: ObjectMetaSchema,
  spec: RuntimeRolloutSpecSchema,
  status: RuntimeRolloutStatusSchema.optional(),
});
export type RolloutObject = z.output<typeof RolloutObjectSchema>;
export type RolloutCondition = z.output<typeof ConditionSchema>;

/** A RuntimeRollout as the API returned it, or undefined when it does not fit the schema (written by hand). */
export function parseRollout(raw: unknown): RolloutObject | undefined {
  const parsed = RolloutObjectSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Rollouts in the order they were created, a name breaking a tie within the second (names sort
 * by target plan, not by time).
 */
export function byCreation(a: RolloutObject, b: RolloutObject): number {
  return (
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/**
 * aicr-rollout-<the target's digest digits>-<creation second, base 36>: sorted by target, unique
 * per second. An adoption's starts aicr-adopt-.
 */
export function rolloutName(toPlan: string, now: Date, prefix: string = ROLLOUT_NAME_PREFIX.Upgrade): string {
  return `${toPlan.replace(/^aicr-plan-/, prefix)}-${Math.floor(now.getTime() / 1000).toString(36)}`;
}

/**
 * Owned by nothing, so the record of who approved what outlives a deleted runtime (SEC-11;
 * retention bounds it); labelled with the schema it is written in, so an older control plane
 * knows it for a newer one's (PLAN-2).
 */
export function rolloutManifest(
  name: string,
  spec: RuntimeRolloutSpec,
): Record<string, unknown> & {
  metadata: { name: string; labels: Record<string, string> };
} {
  return {
    apiVersion: GROUP_VERSION,
    kind: KINDS.runtimeRollout.kind,
    metadata: { name, labels: { [LABEL.schemaVersion]: ROLLOUT_SCHEMA_VERSION } },
    spec,
  };
}

export interface WantedCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** Conditions as wanted, each keeping its transition time unless its status flips. */
export function rolloutConditions(r: RolloutObject, wanted: readonly WantedCondition[], now: Date): RolloutCondition[] {
  return buildConditions(r.status?.conditions, wanted, r.metadata.generation ?? 0, now);
}

/** The kstatus three and Approved for a rollout in one state. */
export function rolloutState(
  state: 'waiting' | 'stalled' | 'progressing' | 'done',
  reason: string,
  message: string,
  approved?: WantedCondition,
): WantedCondition[] {
  const is = (yes: boolean): 'True' | 'False' => (yes ? 'True' : 'False');
  return [
    { type: CONDITION.ready, status: is(state === 'done'), reason, message },
    { type: CONDITION.reconciling, status: is(state === 'progressing'), reason, message },
    { type: CONDITION.stalled, status: is(state === 'waiting' || state === 'stalled'), reason, message },
    ...(approved ? [approved] : []),
  ];
}

export const approvedCondition = (status: 'True' | 'False', reason: string, message: string): WantedCondition => ({
  type: ROLLOUT_CONDITION.approved,
  status,
  reason,
  message,
});

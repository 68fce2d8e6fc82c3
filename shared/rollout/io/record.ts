// The one writer of RuntimeRollouts: each is created here (Upgrade, Adopt and Remove alike), its
// status written here and the Events about it recorded here. Every write takes the step's logger,
// so the rollout outcome metric is sent once for every outcome, whichever action ended it.
import { FIELD_MANAGER, KINDS, ROLLOUT_NAME_PREFIX } from '../../api/constants.ts';
import type { Outcome, RuntimeRolloutSpec, RuntimeRolloutStatus } from '../../api/runtimeRollout.ts';
import { type EventNote, EVENT_REASON, recordEvent } from '../../events/recorder.ts';
import { KIND } from '../../kube/kinds.ts';
import { METRIC } from '../../observability/metrics.ts';
import { canonicalJson } from '../../plans/digest.ts';
import {
  type RolloutObject,
  type WantedCondition,
  parseRollout,
  rolloutConditions,
  rolloutManifest,
  rolloutName,
  rolloutState,
} from '../rules/rolloutObject.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { StepContext } from '../../look/contract.ts';
import { moveOf } from '../rules/released.ts';

/**
 * Applies the rollout's status when it changed; the rollout as it now stands, so a later write in
 * the same look carries its resourceVersion.
 */
export async function writeStatus(
  ctx: StepContext,
  r: RolloutObject,
  status: RuntimeRolloutStatus,
): Promise<RolloutObject> {
  // Whatever the status carried over, it now describes the generation this look saw.
  const full: RuntimeRolloutStatus = { ...status, observedGeneration: r.metadata.generation ?? 0 };
  if (canonicalJson(r.status ?? {}) === canonicalJson(full)) return r;
  const written = await ctx.kube.applyStatus(
    KIND.runtimeRollout,
    { metadata: { name: r.metadata.name, resourceVersion: r.metadata.resourceVersion }, status: full },
    { fieldManager: FIELD_MANAGER.rollout, force: true },
  );
  // Counted once, when the outcome is first written (the rollout's name stays off the dimensions).
  if (full.outcome !== undefined && full.outcome !== r.status?.outcome)
    ctx.log.metric({ metric: METRIC.rollouts, value: 1, dimensions: { Outcome: full.outcome } });
  return parseRollout(written) ?? { ...r, status: full };
}

/** Records the note on the rollout, and on the runtime too, so `kubectl describe` of either shows it. */
export async function noteRollout(ctx: StepContext, r: RolloutObject, note: EventNote): Promise<void> {
  const base = { kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() };
  const about = { kind: KINDS.runtimeRollout.kind, name: r.metadata.name, uid: r.metadata.uid };
  await recordEvent({ ...base, about }, note);
  await recordEvent(base, { ...note, message: `${r.metadata.name}: ${note.message}` });
}

type Unsuccessful = Exclude<Outcome, 'Succeeded'>;

const ENDING: Record<
  Unsuccessful,
  { readonly reason: string; readonly event: EventNote['type']; readonly eventReason: string }
> = {
  Superseded: { reason: 'Superseded', event: 'Normal', eventReason: EVENT_REASON.rolloutSuperseded },
  Revoked: { reason: 'RolloutRevoked', event: 'Warning', eventReason: EVENT_REASON.rolloutRevoked },
  Expired: { reason: 'RolloutExpired', event: 'Warning', eventReason: EVENT_REASON.rolloutExpired },
  Orphaned: { reason: 'Orphaned', event: 'Normal', eventReason: EVENT_REASON.runtimeOrphaned },
  Failed: { reason: 'RolloutFailed', event: 'Warning', eventReason: EVENT_REASON.rolloutFailed },
};

export interface Ending {
  readonly outcome: Unsuccessful;
  readonly message: string;
  /** What the ended rollout's status keeps besides its conditions and outcome. */
  readonly keep: Omit<RuntimeRolloutStatus, 'conditions' | 'outcome'>;
  /** Its Approved condition, when the ending says something about the approval. */
  readonly approved?: WantedCondition;
  /** False when the caller already recorded the Event that says why. */
  readonly event?: false;
}

/** Ends a rollout that did not succeed: its stalled conditions, its outcome, and the Event saying why. */
export async function endRollout(ctx: StepContext, r: RolloutObject, e: Ending): Promise<void> {
  const how = ENDING[e.outcome];
  const conditions = rolloutConditions(r, rolloutState('stalled', how.reason, e.message, e.approved), ctx.now());
  await writeStatus(ctx, r, { ...e.keep, conditions, outcome: e.outcome });
  if (e.event !== false) await noteRollout(ctx, r, { type: how.event, reason: how.eventReason, message: e.message });
}

/** Ends a rollout to a target no longer wanted, or whose retry was asked for; its status otherwise stays. */
export function supersede(ctx: StepContext, r: RolloutObject, why: string): Promise<void> {
  return endRollout(ctx, r, {
    outcome: 'Superseded',
    message: `rollout ${r.metadata.name} (${moveOf(r)}) is superseded: ${why}`,
    keep: { ...r.status },
  });
}

export type NewRollout = Omit<RuntimeRolloutSpec, 'runtimeUID' | 'deadline'>;

function nameOf(ctx: StepContext, spec: NewRollout, now: Date): string {
  const second = Math.floor(now.getTime() / 1000).toString(36);
  if (spec.type === 'Remove') return `${ROLLOUT_NAME_PREFIX.Remove}${ctx.runtime.metadata.uid.slice(0, 8)}-${second}`;
  return rolloutName(spec.toPlan, now, ROLLOUT_NAME_PREFIX[spec.type]);
}

/** Creates the rollout, due for approval within approvalTimeout, and records the Event that says what it is. */
export async function createRollout(
  ctx: StepContext,
  spec: NewRollout,
  approvalMs: number,
  describe: (created: RolloutObject) => string,
): Promise<RolloutObject> {
  const now = ctx.now();
  const full: RuntimeRolloutSpec = {
    runtimeUID: ctx.runtime.metadata.uid,
    ...spec,
    deadline: kubeTime(new Date(now.getTime() + approvalMs)),
  };
  const created = parseRollout(
    await ctx.kube.create(KIND.runtimeRollout, rolloutManifest(nameOf(ctx, spec, now), full)),
  );
  if (!created) throw new Error('the API server returned a RuntimeRollout that does not fit its schema');
  await noteRollout(ctx, created, { type: 'Normal', reason: EVENT_REASON.rolloutCreated, message: describe(created) });
  return created;
}

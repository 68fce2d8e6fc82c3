// How one look at a running rollout ends: still moving, held, stalled on a person, failed or
// done. Each writes the rollout's status once (its steps, conditions and the approval verdict)
// and says what the runtime's Released condition shows.
import type { RuntimeRolloutStatus } from '../../api/runtimeRollout.ts';
import type { Reason } from '../../api/reasons.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import type { StepContext } from '../../look/contract.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import type { Release } from '../../plans/release.ts';
import type { RolloutLook } from '../io/look.ts';
import { endRollout, noteRollout, writeStatus } from '../io/record.ts';
import { removed } from './cleanup.ts';
import { type StepState, timeLeft } from '../rules/progress.ts';
import { type RolloutReport, endedBadly, periodicLook, released } from '../rules/released.ts';
import type { AfterAct, LookEnd } from '../rules/releaseMoveKinds.ts';
import { OUTSIDE_WINDOW, headOf, namesOf, whereOf } from '../rules/releaseWords.ts';
import { type RolloutObject, type WantedCondition, rolloutConditions, rolloutState } from '../rules/rolloutObject.ts';
import { inventoryDrift, rolloutFailed } from '../../status/reasonMessages.released.ts';

export interface Approved {
  /** The rollout's Approved condition while it runs. */
  readonly condition: WantedCondition;
  /** The verdict to record, when this look accepted the approval. */
  readonly approval?: RuntimeRolloutStatus['approval'];
}

/** A running rollout as one look sees it; each look ends with one write of its status. */
export interface Running {
  readonly ctx: StepContext;
  readonly look: RolloutLook;
  readonly r: RolloutObject;
  readonly approved: Approved;
  readonly actionTimeoutMs: number;
  /** The target plan's Applications and releases by release name. */
  readonly intended: ReadonlyMap<string, PlanApplication>;
  readonly releases: ReadonlyMap<string, Release>;
}

type State = Parameters<typeof rolloutState>[0];

/** What the rollout's conditions say after this look. */
interface Shown {
  readonly state: State;
  readonly reason: string;
  readonly message: string;
}

async function save(
  run: Running,
  states: readonly StepState[],
  shown: Shown,
  extra: Partial<RuntimeRolloutStatus> = {},
): Promise<RolloutObject> {
  const { r, ctx } = run;
  const approval = run.approved.approval ?? r.status?.approval;
  const conditions = rolloutConditions(
    r,
    rolloutState(shown.state, shown.reason, shown.message, run.approved.condition),
    ctx.now(),
  );
  const written = await writeStatus(ctx, r, {
    ...(approval ? { approval } : {}),
    conditions,
    steps: [...states],
    ...extra,
  });
  await announceApproval(run, written);
  return written;
}

/**
 * The ApprovalAccepted Event, once the status records the approval: told after it is recorded,
 * so a control plane that dies between the two loses at most the Event, never the verdict, and
 * a look after it finds the approval recorded instead of telling of it again and again.
 */
async function announceApproval(run: Running, written: RolloutObject): Promise<void> {
  const accepted = run.approved.approval;
  if (!accepted || verdictRecorded(run)) return;
  await noteRollout(run.ctx, written, {
    type: 'Normal',
    reason: EVENT_REASON.approvalAccepted,
    message: accepted.message ?? '',
  });
}

/** Whether the rollout as read already holds the approval this look accepted (none accepted: nothing to record). */
function verdictRecorded(run: Running): boolean {
  const accepted = run.approved.approval;
  const recorded = run.r.status?.approval;
  return !accepted || (recorded?.approvedAt === accepted.approvedAt && recorded.state === 'Accepted');
}

const lineOf = (run: Running, i: number, text: string): string => `${headOf(run.r)}: ${whereOf(run.r, i)}: ${text}`;

/**
 * When a release in flight is looked at again: when its time runs out, or now and then as a net
 * under a missed report.
 */
function progressLook(run: Running, state: StepState | undefined): Omit<RolloutReport, 'conditions'> {
  const left = state ? timeLeft(state, run.actionTimeoutMs, run.ctx.now()) : run.actionTimeoutMs;
  const untilTimeout = Math.max(0, left + 1000);
  const recheckMs = run.ctx.timings.engineRecheckMs;
  return untilTimeout < recheckMs ? { recheckAfterMs: untilTimeout } : periodicLook(run.ctx.now(), recheckMs);
}

/**
 * Write-ahead: release `i` recorded as started, with the approval verdict, before its write to
 * Argo CD, so a look after a crash between the two finds the write it may have made expected, not
 * drift, and an approval already accepted, not refused for the Applications it changed. The
 * rollout as written, which a record after the write in the same look must name.
 */
export function recordStart(run: Running, states: readonly StepState[], i: number): Promise<RolloutObject> {
  const message = lineOf(run, i, states[i]?.message ?? '');
  return save(run, states, { state: 'progressing', reason: 'RolloutProgressing', message }, { currentStep: i });
}

/** The look after a release's start: its write's result is the next look's to read. */
export function startedReport(run: Running, states: readonly StepState[], i: number, then: AfterAct): RolloutReport {
  const message = lineOf(run, i, states[i]?.message ?? '');
  const next = then === 'soon' ? { recheckAfterMs: 0 } : progressLook(run, states[i]);
  return released('False', 'RolloutProgressing', message, next);
}

/** The look stops at release `i` without writing to Argo CD. */
export function ended(run: Running, states: readonly StepState[], i: number, end: LookEnd): Promise<RolloutReport> {
  switch (end.kind) {
    case 'progress':
      return progress(run, states, i);
    case 'window':
      return windowWait(run, states, i, end);
    case 'hold':
      return hold(run, states, end.why);
    case 'guard':
      return guardHold(run, states, i, end);
    case 'stall':
      return stall(run, states, i, end);
  }
}

/** A release in flight: look again when Argo CD's report may have changed, or when its time runs out. */
export async function progress(run: Running, states: readonly StepState[], i: number): Promise<RolloutReport> {
  const message = lineOf(run, i, states[i]?.message ?? '');
  await save(run, states, { state: 'progressing', reason: 'RolloutProgressing', message }, { currentStep: i });
  // Argo CD's report wakes the step; the recheck is only a net under a missed change.
  return released('False', 'RolloutProgressing', message, progressLook(run, states[i]));
}

async function windowWait(
  run: Running,
  states: readonly StepState[],
  i: number,
  { window, what }: Extract<LookEnd, { kind: 'window' }>,
): Promise<RolloutReport> {
  const message = `${headOf(run.r)} ${what} ${whereOf(run.r, i)}: ${window.why}`;
  await save(run, states, { state: 'progressing', reason: OUTSIDE_WINDOW, message }, { currentStep: i });
  return released('False', OUTSIDE_WINDOW, message, {
    recheckAfterMs: window.recheckAfterMs,
    ...(window.recheckKey ? { recheckKey: window.recheckKey } : {}),
  });
}

/** Nothing starts now: the runtime is paused, Argo CD cannot take writes, or the registry cannot be asked. */
export async function hold(run: Running, states: readonly StepState[], why: string): Promise<RolloutReport> {
  const i = states.findIndex((s) => s.state !== 'Succeeded');
  const at = i < 0 ? 'before it finishes' : `at ${whereOf(run.r, i)}`;
  const message = `${headOf(run.r)} holds ${at}: ${why}`;
  await save(
    run,
    states,
    { state: 'progressing', reason: 'RolloutProgressing', message },
    i < 0 ? {} : { currentStep: i },
  );
  return released('False', 'RolloutProgressing', message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

/** GPU-1 and GPU-2: a disruptive release waits while protected work runs; past maxWait a person decides. */
async function guardHold(
  run: Running,
  states: readonly StepState[],
  i: number,
  { reason, message }: Extract<LookEnd, { kind: 'guard' }>,
): Promise<RolloutReport> {
  const state = reason === 'WorkloadsStillRunning' ? 'waiting' : 'progressing';
  await save(run, states, { state, reason, message }, { currentStep: i });
  return released('False', reason, message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

/** A person must act before the rollout moves on; it has not ended. */
async function stall(
  run: Running,
  states: readonly StepState[],
  i: number,
  { reason, message }: Extract<LookEnd, { kind: 'stall' }>,
): Promise<RolloutReport> {
  const full = lineOf(run, i, message);
  await save(run, states, { state: 'waiting', reason, message: full }, { currentStep: i });
  // A chart pushed back to the registry wakes nothing in the cluster, so the registry is asked again.
  const again = reason === 'ChartChanged' ? { recheckAfterMs: run.ctx.timings.engineRecheckMs } : {};
  return released('False', reason, full, again);
}

/**
 * ROL-2: the owned Applications changed since the rollout was approved; nothing is written until
 * they are as approved again, or a retry replaces it.
 */
export async function drifted(
  run: Running,
  states: readonly StepState[],
  changes: readonly string[],
): Promise<RolloutReport> {
  const i = states.findIndex((s) => s.state !== 'Succeeded');
  const where = i < 0 ? undefined : whereOf(run.r, i);
  const message = inventoryDrift({ ...namesOf(run.r), where, changes });
  await save(run, states, { state: 'waiting', reason: 'InventoryDrift', message }, i < 0 ? {} : { currentStep: i });
  return released('False', 'InventoryDrift', message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

/** A phase of the rollout that is not a release's: validation under way or unable to start. */
export async function phase(
  run: Running,
  states: readonly StepState[],
  shown: Shown & { readonly reason: Reason },
  then: { readonly extra: Partial<RuntimeRolloutStatus>; readonly recheckAfterMs: number },
): Promise<RolloutReport> {
  await save(run, states, shown, then.extra);
  return released('False', shown.reason, shown.message, { recheckAfterMs: then.recheckAfterMs });
}

export function fail(run: Running, states: readonly StepState[], i: number, why: string): Promise<RolloutReport> {
  const message = rolloutFailed(namesOf(run.r), why, run.r.spec.toPlan);
  return failWith(run, states, message, { currentStep: i });
}

/** Ends the running rollout Failed with what it did so far. */
export async function failWith(
  run: Running,
  states: readonly StepState[],
  message: string,
  more: Omit<RuntimeRolloutStatus, 'conditions' | 'outcome'>,
): Promise<RolloutReport> {
  const approval = run.approved.approval ?? run.r.status?.approval;
  await endRollout(run.ctx, run.r, {
    outcome: 'Failed',
    message,
    keep: { ...(approval ? { approval } : {}), steps: [...states], ...more },
    approved: run.approved.condition,
  });
  await announceApproval(run, run.r);
  return endedBadly(run.r, 'RolloutFailed', message);
}

const WHAT_SUCCESS = {
  Upgrade: (plan: string) => `Argo CD reports every release of plan ${plan} synced and healthy`,
  Remove: () => 'Argo CD removed every release and its Application',
  Adopt: (plan: string) =>
    `every Application of plan ${plan} now names this runtime as its owner; nothing else on them changed`,
} as const;

/** Every release done (and validated, deploymentValidation.ts): the target plan is the active plan. */
export async function succeed(
  run: Running,
  states: readonly StepState[],
  validation?: { readonly status: NonNullable<RuntimeRolloutStatus['validation']>; readonly note: string },
): Promise<RolloutReport> {
  const plan = run.r.spec.toPlan;
  const note = validation ? `; ${validation.note}` : '';
  const message = `${headOf(run.r)} succeeded: ${WHAT_SUCCESS[run.r.spec.type](plan)}${note}`;
  await save(
    run,
    states,
    { state: 'done', reason: 'RolloutSucceeded', message },
    { outcome: 'Succeeded', ...(validation ? { validation: validation.status } : {}) },
  );
  await noteRollout(run.ctx, run.r, { type: 'Normal', reason: EVENT_REASON.rolloutSucceeded, message });
  if (run.r.spec.type === 'Remove') return removed(run.ctx, run.r);
  return released('True', 'Released', `plan ${plan} is active: ${message}`, { fields: { activePlan: plan } });
}

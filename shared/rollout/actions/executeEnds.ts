// How one look at a running rollout ends: still moving, held, stalled on a person, failed or
// done. Each writes the rollout's status once (its steps, conditions and the approval verdict)
// and says what the runtime's Released condition shows.
import type { RuntimeRolloutStatus } from '../../api/runtimeRollout.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import type { Release } from '../../plans/release.ts';
import { type RolloutObject, type WantedCondition, rolloutConditions, rolloutState } from '../rules/rolloutObject.ts';
import { type StepState, timeLeft } from '../rules/progress.ts';
import type { Reason } from '../../api/reasons.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { endRollout, noteRollout, writeStatus } from '../io/record.ts';
import { type RolloutReport, moveOf, periodicLook, released } from '../rules/released.ts';

export interface Approved {
  /** The rollout's Approved condition while it runs. */
  readonly condition: WantedCondition;
  /** The verdict to record, when this look accepted the approval. */
  readonly approval?: RuntimeRolloutStatus['approval'];
}

export interface Run {
  readonly ctx: StepContext;
  readonly look: RolloutLook;
  /** The rollout as last written: a write-ahead record in the look moves it on, so the look's last write carries its resourceVersion. */
  r: RolloutObject;
  readonly approved: Approved;
  readonly states: StepState[];
  readonly actionTimeoutMs: number;
  /** The target plan's Applications and releases by release name. */
  readonly intended: ReadonlyMap<string, PlanApplication>;
  readonly releases: ReadonlyMap<string, Release>;
}

/** A step done, so the look moves to the next; or how the look ends. */
export type Next = 'next' | RolloutReport;

/** Changes the look's copy of step `i`; the look's one status write records it. */
export function setStep(run: Run, i: number, state: Partial<StepState>): void {
  const prev = run.states[i];
  if (prev) run.states[i] = { ...prev, ...state };
}

type State = Parameters<typeof rolloutState>[0];

/** What the rollout's conditions say after this look. */
export interface Shown {
  readonly state: State;
  readonly reason: string;
  readonly message: string;
}

export async function save(run: Run, shown: Shown, extra: Partial<RuntimeRolloutStatus> = {}): Promise<void> {
  const { r, ctx } = run;
  const approval = run.approved.approval ?? r.status?.approval;
  const conditions = rolloutConditions(
    r,
    rolloutState(shown.state, shown.reason, shown.message, run.approved.condition),
    ctx.now(),
  );
  run.r = await writeStatus(ctx, r, { ...(approval ? { approval } : {}), conditions, steps: run.states, ...extra });
  await announceApproval(run, r);
}

/**
 * The ApprovalAccepted Event, once the status records the approval: told after it is recorded,
 * so a control plane that dies between the two loses at most the Event, never the verdict, and
 * a look after it finds the approval recorded instead of telling of it again and again.
 */
async function announceApproval(run: Run, before: RolloutObject): Promise<void> {
  const accepted = run.approved.approval;
  if (!accepted || verdictRecorded(run, before)) return;
  await noteRollout(run.ctx, run.r, {
    type: 'Normal',
    reason: EVENT_REASON.approvalAccepted,
    message: accepted.message ?? '',
  });
}

/** Whether `r`'s status already holds the approval this look accepted (none accepted: nothing to record). */
export function verdictRecorded(run: Run, r: RolloutObject = run.r): boolean {
  const accepted = run.approved.approval;
  return (
    !accepted || (r.status?.approval?.approvedAt === accepted.approvedAt && r.status.approval.state === 'Accepted')
  );
}

/**
 * Write-ahead: step `i` recorded as started, with the approval verdict, before the step writes
 * to Argo CD, so a look after a crash between the two finds the write it may have made expected,
 * not drift, and an approval already accepted, not refused for the Applications it changed.
 */
export async function intend(run: Run, i: number): Promise<void> {
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}): ${where(run, i)}: ${run.states[i]?.message ?? ''}`;
  await save(run, { state: 'progressing', reason: 'RolloutProgressing', message }, { currentStep: i });
}

/** "step 2 of 3, Install gpu-operator". */
export function where(run: Run, i: number): string {
  const step = run.r.spec.steps[i];
  return `step ${i + 1} of ${run.r.spec.steps.length}, ${step?.action ?? ''} ${step?.release ?? ''}`;
}

/** A step in flight: look again when Argo CD's report may have changed, or when its time runs out. */
export async function progress(run: Run, i: number): Promise<RolloutReport> {
  const state = run.states[i];
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}): ${where(run, i)}: ${state?.message ?? ''}`;
  await save(run, { state: 'progressing', reason: 'RolloutProgressing', message }, { currentStep: i });
  const left = state ? timeLeft(state, run.actionTimeoutMs, run.ctx.now()) : run.actionTimeoutMs;
  const untilTimeout = Math.max(0, left + 1000);
  const recheckMs = run.ctx.timings.engineRecheckMs;
  // A step's timeout is looked at when it comes; otherwise Argo CD's report wakes the step, and
  // the recheck is only a net under a missed change.
  return released(
    'False',
    'RolloutProgressing',
    message,
    untilTimeout < recheckMs ? { recheckAfterMs: untilTimeout } : periodicLook(run.ctx.now(), recheckMs),
  );
}

/** Nothing starts now: the runtime is paused or Argo CD cannot take writes. */
export async function hold(run: Run, why: string): Promise<RolloutReport> {
  const i = run.states.findIndex((s) => s.state !== 'Succeeded');
  const at = i < 0 ? 'before it finishes' : `at ${where(run, i)}`;
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) holds ${at}: ${why}`;
  await save(run, { state: 'progressing', reason: 'RolloutProgressing', message }, i < 0 ? {} : { currentStep: i });
  return released('False', 'RolloutProgressing', message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

/** A person must act before the rollout moves on; it has not ended. */
export async function stall(
  run: Run,
  i: number,
  reason: Extract<Reason, 'StepUnknown' | 'AwaitingAcknowledgement' | 'ChartChanged'>,
  message: string,
): Promise<RolloutReport> {
  const state = run.states[i];
  if (state && reason !== 'AwaitingAcknowledgement') run.states[i] = { ...state, reason, message };
  const full = `rollout ${run.r.metadata.name} (${moveOf(run.r)}): ${where(run, i)}: ${message}`;
  await save(run, { state: 'waiting', reason, message: full }, { currentStep: i });
  // A chart pushed back to the registry wakes nothing in the cluster, so the registry is asked again.
  return released(
    'False',
    reason,
    full,
    reason === 'ChartChanged' ? { recheckAfterMs: run.ctx.timings.engineRecheckMs } : {},
  );
}

/** ROL-2: the owned Applications changed since the rollout was approved; nothing is written until they are as approved again, or a retry replaces it. */
export async function drifted(run: Run, changes: readonly string[]): Promise<RolloutReport> {
  const name = run.r.metadata.name;
  const i = run.states.findIndex((s) => s.state !== 'Succeeded');
  const message = `rollout ${name} (${moveOf(run.r)}) holds${i < 0 ? '' : ` at ${where(run, i)}`}: the owned Argo CD Applications changed since it was created and approved: ${changes.join('; ')}. Nothing is written to Argo CD while they differ. Undo the changes and it resumes by itself, or run kubectl aicr retry ${name} to end it Superseded and create a new rollout from the current state, which needs a fresh approval`;
  await save(run, { state: 'waiting', reason: 'InventoryDrift', message }, i < 0 ? {} : { currentStep: i });
  return released('False', 'InventoryDrift', message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

export async function fail(run: Run, i: number, why: string): Promise<RolloutReport> {
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) failed: ${why}. Releases it already moved stay at plan ${run.r.spec.toPlan}. Fix the cause, then retry it with kubectl aicr retry ${run.r.metadata.name}, or pin the active plan to roll back`;
  return failWith(run, message, { currentStep: i });
}

/** Ends the running rollout Failed with what it did so far. */
export async function failWith(
  run: Run,
  message: string,
  more: Omit<RuntimeRolloutStatus, 'conditions' | 'outcome'>,
): Promise<RolloutReport> {
  const approval = run.approved.approval ?? run.r.status?.approval;
  await endRollout(run.ctx, run.r, {
    outcome: 'Failed',
    message,
    keep: { ...(approval ? { approval } : {}), steps: run.states, ...more },
    approved: run.approved.condition,
  });
  await announceApproval(run, run.r);
  return { ...released('False', 'RolloutFailed', message), ended: 'Failed' };
}

const WHAT_SUCCESS = {
  Upgrade: (plan: string) => `Argo CD reports every release of plan ${plan} synced and healthy`,
  Remove: () => 'Argo CD removed every release and its Application',
  Adopt: (plan: string) =>
    `every Application of plan ${plan} now names this runtime as its owner; nothing else on them changed`,
} as const;

/** Every step done (and validated, validate.ts): the target plan is the active plan. */
export async function succeed(
  run: Run,
  validation?: { readonly status: NonNullable<RuntimeRolloutStatus['validation']>; readonly note: string },
): Promise<RolloutReport> {
  const plan = run.r.spec.toPlan;
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) succeeded: ${WHAT_SUCCESS[run.r.spec.type](plan)}${validation ? `; ${validation.note}` : ''}`;
  await save(
    run,
    { state: 'done', reason: 'RolloutSucceeded', message },
    { outcome: 'Succeeded', ...(validation ? { validation: validation.status } : {}) },
  );
  await noteRollout(run.ctx, run.r, { type: 'Normal', reason: EVENT_REASON.rolloutSucceeded, message });
  return {
    ...released('True', 'Released', `plan ${plan} is active: ${message}`, { fields: { activePlan: plan } }),
    ended: 'Succeeded',
  };
}

// The long messages of the Released reasons a rollout under way or ended shows: what holds it,
// why it ended, and what a person runs next. Beside the guide's entries for the same reasons
// (reasonGuide.released.ts); the reasons that keep a rollout from being made or from starting are
// in reasonMessages.noRollout.ts.
import { NAMESPACES } from '../api/constants.ts';

/** How a rollout is named in its messages. */
export interface RolloutNames {
  /** "rollout aicr-rollout-… (a → b)". */
  readonly head: string;
  /** The rollout object's name, for the commands a person runs on it. */
  readonly rollout: string;
}

const retryCommand = (rollout: string): string => `kubectl aicr retry ${rollout}`;
const retryOrRetarget = (rollout: string): string =>
  `Retry it with ${retryCommand(rollout)}, or change the target plan`;

/** AwaitingApproval: the rollout waits for an approver until its deadline (APR-1). */
export interface Unapproved extends RolloutNames {
  /** The steps and their verdicts, as one phrase. */
  readonly assessed: string;
  readonly deadline: string | undefined;
  /** Why the approval given was refused, when one was. */
  readonly refused?: string | undefined;
}

export function awaitingApproval(u: Unapproved): string {
  const lead = u.refused === undefined ? '' : `${u.refused}. `;
  return (
    `${lead}${u.head} needs an approver: ${u.assessed}. Nothing has been written. ` +
    `Approve it with kubectl aicr approve ${u.rollout} before ${u.deadline}; unapproved, it ends Expired then`
  );
}

/** RolloutExpired: nobody approved the rollout before its deadline. */
export function rolloutExpired(r: RolloutNames, deadline: string | undefined): string {
  return (
    `${r.head} expired at ${deadline} without an approval; nothing was written to Argo CD. ` +
    retryOrRetarget(r.rollout)
  );
}

/** Who revoked a rollout, when, and why if they said. */
export interface Revocation {
  readonly revokedBy: string;
  readonly revokedAt: string;
  readonly reason?: string | undefined;
}

/** RolloutRevoked: `movedTo` is the target plan when releases had moved, else undefined. */
export function rolloutRevoked(r: RolloutNames, by: Revocation | undefined, movedTo: string | undefined): string {
  const why = by?.reason ? `: ${by.reason}` : '';
  const where =
    movedTo === undefined ? 'nothing had been written to Argo CD' : `releases it already moved stay at plan ${movedTo}`;
  return (
    `${r.head} was revoked by ${by?.revokedBy ?? 'someone'} at ${by?.revokedAt ?? 'an unknown time'}${why}; ` +
    `nothing more is written and ${where}. ${retryOrRetarget(r.rollout)}`
  );
}

/** RolloutFailed: a step failed (`why`); what it moved stays at `toPlan`. */
export function rolloutFailed(r: RolloutNames, why: string, toPlan: string): string {
  return (
    `${r.head} failed: ${why}. Releases it already moved stay at plan ${toPlan}. ` +
    `Fix the cause, then retry it with ${retryCommand(r.rollout)}, or pin the active plan to roll back`
  );
}

/** RolloutFailed: deployment validation failed or could not run (`why`). */
export function rolloutFailedValidation(r: RolloutNames, why: string): string {
  return (
    `${r.head} failed: ${why}. Read the Job in aicr-validation, fix the cause, ` +
    `then retry it with ${retryCommand(r.rollout)}: a retry is a new rollout and a new run`
  );
}

/** RemovalFailed: the removal rollout ended badly (`ended` says how); the finalizer stays. */
export function removalFailed(ended: string, rollout: string): string {
  return (
    `${ended}. The runtime keeps its cleanup finalizer until the removal succeeds: ` +
    `fix the cause, then ${retryCommand(rollout)}`
  );
}

/** InventoryDrift: the owned Applications changed since approval (ROL-2); `where` is the step it holds at. */
export interface Drifted extends RolloutNames {
  readonly where?: string | undefined;
  readonly changes: readonly string[];
}

export function inventoryDrift(d: Drifted): string {
  const at = d.where === undefined ? '' : ` at ${d.where}`;
  return (
    `${d.head} holds${at}: the owned Argo CD Applications changed since it was created and approved: ` +
    `${d.changes.join('; ')}. Nothing is written to Argo CD while they differ. ` +
    `Undo the changes and it resumes by itself, or run ${retryCommand(d.rollout)} to end it Superseded ` +
    'and create a new rollout from the current state, which needs a fresh approval'
  );
}

/** ChartChanged: `pinned` says how the chart differs from what the plan pinned (SEC-5). */
export function chartChanged(pinned: string, toPlan: string): string {
  return (
    `${pinned}. Nothing was written for it. Push the pinned chart back and the rollout goes on by itself; ` +
    'or, to take the chart as the registry holds it now, ' +
    `delete the plan (kubectl -n ${NAMESPACES.system} delete configmap ${toPlan}): ` +
    'resolution builds it again from its bundle, copying the charts again, ' +
    'and a rollout to a changed plan needs a fresh approval'
  );
}

/** ChartChanged for a chart the plan recorded no digest of: only a new resolution pins it. */
export function chartUnpinned(
  release: string,
  chart: { repoURL: string; chart: string; version: string },
  toPlan: string,
): string {
  return (
    `chart ${chart.repoURL}/${chart.chart}:${chart.version} of release ${release} has no recorded digest, so its ` +
    'Application could name it only by version, which anyone with push rights can change. Nothing was written ' +
    `for it. Delete the plan (kubectl -n ${NAMESPACES.system} delete configmap ${toPlan}): resolution builds it ` +
    'again, pinning each chart, and a rollout to the new plan needs a fresh approval'
  );
}

/** AwaitingAcknowledgement: a manual release is applied and its recorded steps are a person's. */
export function awaitingAcknowledgement(release: string, rollout: string): string {
  return (
    `release ${release} is applied and healthy; it is manual, so do its recorded steps ` +
    `(kubectl aicr describe ${rollout} lists them), then run kubectl aicr acknowledge ${rollout}. ` +
    'Nothing further starts until then'
  );
}

/** A rollout's step about to start a release that disrupts GPU Nodes (GPU-1, GPU-2). */
export interface GuardedStep extends RolloutNames {
  /** "step 2 of 3, Install gpu-operator". */
  readonly where: string;
}

/** How long the step has waited for protected work, and for which. */
export interface WorkWait {
  /** The protected Pods that run, as one phrase. */
  readonly pods: string;
  readonly since: string;
  readonly maxWait: string;
}

const waitsBefore = (s: GuardedStep): string => `${s.head} waits before ${s.where}, a release that disrupts GPU Nodes`;

/** WaitingForWorkloads: spec.workloads does not validate, so what to wait for is unknown. */
export function waitingForWorkloadsUnknown(s: GuardedStep): string {
  return (
    `${waitsBefore(s)}: spec.workloads does not validate, so which work is protected is not known; ` +
    "the runtime's Resolved condition names the field to fix"
  );
}

/** WaitingForWorkloads: protected work runs; the step starts once it ends. */
export function waitingForWorkloads(s: GuardedStep, w: WorkWait): string {
  return (
    `${waitsBefore(s)}: ${w.pods}; it starts once they end ` +
    `(waiting since ${w.since}, at most ${w.maxWait} before a person is asked)`
  );
}

/** WorkloadsStillRunning: spec.workloads.maxWait has passed; a person decides, the control plane never evicts. */
export function workloadsStillRunning(s: GuardedStep, w: WorkWait): string {
  return (
    `${waitsBefore(s)}: ${w.pods}, still after spec.workloads.maxWait (${w.maxWait}, waiting since ${w.since}). ` +
    'Let the work end and it goes on by itself, or let it disrupt them with ' +
    `kubectl aicr approve --disrupt ${s.rollout}; the control plane never evicts`
  );
}

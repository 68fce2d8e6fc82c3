// How one release of a running rollout moves, decided from facts alone. A look walks the rollout's
// steps in order: a release that is done lets the next one move in the same look, and the first
// that is not says how the look ends, with at most one write to Argo CD. What a move needs that
// the look has not read (the AppProject's sync windows, the protected Pods, the registry's charts,
// an Application the listing lacks) it asks for by name; the look reads it and asks again. What a
// write did is never judged by the look that made it: an applied Application is recorded as written
// there, as decided before the write, and the next look reads the rest.
import { ANNOTATION } from '../../api/constants.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import { unpinnedSources } from '../../plans/release.ts';
import { kubeTime } from '../../status/conditions.ts';
import { writtenAsIntended } from './drift.ts';
import { gate } from './gate.ts';
import { STEP_WRITING, type StepState, needsAcknowledgement, timeLeft } from './progress.ts';
import { guardMove } from './releaseGuard.ts';
import type { ClosedWindow, FactName, LookEnd, ReleaseAction, ReleaseFacts, ReleaseMove } from './releaseMoveKinds.ts';
import { OUTSIDE_WINDOW, revisions } from './releaseWords.ts';
import { awaitingAcknowledgement, chartChanged, chartUnpinned } from '../../status/reasonMessages.released.ts';

const need = (fact: FactName): ReleaseMove => ({ kind: 'need', fact });
const at = (f: ReleaseFacts): string => kubeTime(f.now);

/** The release's next state, and the one thing the look does about it. */
export function releaseMove(f: ReleaseFacts): ReleaseMove {
  switch (f.state.state) {
    case 'Pending':
      return start(f);
    case 'InProgress':
      return check(f);
    case 'AwaitingAcknowledgement':
      return acknowledgeWait(f);
    default:
      return { kind: 'fail', state: f.state, why: f.state.message ?? `step ${f.words.index + 1} failed` };
  }
}

/** A Pending release: its gates in order (windows, protected work, chart pins), then its start. */
function start(f: ReleaseFacts): ReleaseMove {
  const window = windowsOpen(f);
  if (window !== 'open') return window;
  const guarded = guardMove(f);
  if (guarded.kind !== 'clear') return guarded.move;
  const g: ReleaseFacts = { ...f, state: guarded.state };
  if (g.step.action === 'Adopt') return adopt(g);
  if (g.step.action === 'Remove') return startRemoval(g);
  const app = g.intended;
  if (!app) return stall(g, 'StepUnknown', `${lacking(g)}; nothing was written for it. Retry the rollout`);
  const pins = pinsHeld(g);
  if (pins !== 'held') return pins;
  const writing: StepState = {
    ...g.state,
    state: 'InProgress',
    startedAt: at(g),
    reason: STEP_WRITING,
    message: `being written to Argo CD at ${revisions(app)}`,
  };
  return { kind: 'act', state: writing, action: writeOf(g, app), then: 'progress' };
}

/** WIN-1 to WIN-3: the runtime's maintenance windows, then, for a step Argo CD syncs, its AppProject's. */
function windowsOpen(f: ReleaseFacts): 'open' | ReleaseMove {
  if (!f.maintenance.open) return { kind: 'end', state: f.state, end: closed(f.maintenance, 'waits before') };
  if (!syncs(f)) return 'open';
  if (f.syncWindow === undefined) return need('syncWindow');
  return f.syncWindow.open ? 'open' : { kind: 'end', state: f.state, end: closed(f.syncWindow, 'waits before') };
}

const closed = (window: ClosedWindow, what: 'waits before' | 'holds at'): LookEnd => ({ kind: 'window', what, window });

/** Only Install and Upgrade steps need Argo CD to sync; an Adopt step writes annotations, a Remove step a deletion. */
function syncs(f: ReleaseFacts): boolean {
  return (f.step.action === 'Install' || f.step.action === 'Upgrade') && f.intended !== undefined;
}

function writeOf(f: ReleaseFacts, app: PlanApplication): ReleaseAction {
  const { step } = f;
  // A write that changes nothing gives Argo CD no reason to report anew; the gate trusts only a newer report.
  const refresh = step.action === 'Upgrade' && step.fromVersion === step.toVersion && !step.valuesChanged;
  return { name: 'write', app, refresh };
}

/**
 * SEC-5, SEC-9: every chart the release names has a digest in the plan, which its Application
 * pins, and the registry still holds those bytes.
 */
function pinsHeld(f: ReleaseFacts): 'held' | ReleaseMove {
  if (f.release === undefined) return 'held';
  const unpinned = unpinnedSources(f.release)[0];
  if (unpinned) return stall(f, 'ChartChanged', chartUnpinned(f.release.name, unpinned, f.words.toPlan));
  if (f.pins === undefined) return need('pins');
  if (f.pins.state === 'held') return 'held';
  if (f.pins.state === 'unchecked') return { kind: 'end', state: f.state, end: { kind: 'hold', why: f.pins.message } };
  return stall(f, 'ChartChanged', chartChanged(f.pins.message, f.words.toPlan));
}

/** A Remove step: its start recorded, then Argo CD asked to delete; one already gone is done at once. */
function startRemoval(f: ReleaseFacts): ReleaseMove {
  const live = liveOf(f);
  if (live === undefined) return need('live');
  const now = at(f);
  if (live === 'absent') {
    const state: StepState = {
      ...f.state,
      state: 'Succeeded',
      startedAt: now,
      finishedAt: now,
      reason: 'Removed',
      message: 'the Application was already gone',
    };
    return { kind: 'done', state };
  }
  const removing: StepState = {
    ...f.state,
    state: 'InProgress',
    startedAt: now,
    reason: 'Removing',
    message: "Argo CD is deleting the release's resources, then the Application",
  };
  return { kind: 'act', state: removing, action: { name: 'remove' }, then: 'progress' };
}

/** The listed copy, else one read by name. */
function liveOf(f: ReleaseFacts): GenericObject | 'absent' | undefined {
  return f.listed ?? f.live;
}

/** An Adopt step changes only the ownership annotations; the next look finds them moved. */
function adopt(f: ReleaseFacts): ReleaseMove {
  const live = liveOf(f);
  if (live === undefined) return need('live');
  // A step found already started (after a crash) keeps the time it started.
  const startedAt = f.state.startedAt ?? at(f);
  if (live === 'absent') {
    const failed: StepState = {
      ...f.state,
      state: 'Failed',
      startedAt,
      finishedAt: at(f),
      reason: 'ApplicationMissing',
      message: 'the Application was deleted before it was adopted',
    };
    return { kind: 'fail', state: failed, why: `Application ${f.step.release} was deleted before it was adopted` };
  }
  if (adopted(live, f.runtimeUID)) {
    const message = 'its ownership annotations now name this runtime; nothing else changed';
    const state: StepState = {
      ...f.state,
      state: 'Succeeded',
      startedAt,
      finishedAt: at(f),
      reason: 'Adopted',
      message,
    };
    return { kind: 'done', state };
  }
  const message = 'its ownership annotations are being moved to this runtime';
  const state: StepState = { ...f.state, state: 'InProgress', startedAt, reason: 'Adopting', message };
  return { kind: 'act', state, action: { name: 'adopt' }, then: 'soon' };
}

function adopted(app: GenericObject, runtimeUID: string): boolean {
  const annotations = app.metadata.annotations ?? {};
  return annotations[ANNOTATION.runtimeUID] === runtimeUID && annotations[ANNOTATION.orphanedFrom] === undefined;
}

/** A release in flight: checked against Argo CD's report, or its removal's progress. */
function check(f: ReleaseFacts): ReleaseMove {
  if (f.step.action === 'Adopt') return adopt(f);
  if (f.step.action === 'Remove') return checkRemoval(f);
  const app = f.intended;
  if (!app) return stall(f, 'StepUnknown', `${lacking(f)}. Retry the rollout`);
  if (f.state.reason === STEP_WRITING) return writtenYet(f, app);
  const live = liveOf(f);
  if (live === undefined) return need('live');
  const verdict = gate(live === 'absent' ? undefined : live, app, new Date(f.state.startedAt ?? 0));
  if (verdict.held) return finished(f, `Argo CD reports it synced and healthy at ${revisions(app)}`);
  return waitOrFail(f, verdict);
}

function checkRemoval(f: ReleaseFacts): ReleaseMove {
  const live = liveOf(f);
  if (live === undefined) return need('live');
  if (live === 'absent') return finished(f, 'removed: Argo CD deleted its resources and the Application');
  const why = { reason: 'Removing', message: "Argo CD is still deleting the release's resources" };
  const waiting = waitOrFail(f, why);
  // Started but not yet deleted (the control plane stopped between the record and the deletion): asked again.
  if (waiting.kind === 'end' && live.metadata.deletionTimestamp === undefined)
    return { kind: 'act', state: waiting.state, action: { name: 'remove' }, then: 'progress' };
  return waiting;
}

/**
 * A release recorded as being written, found so by a later look: written again unless the look's
 * listing shows the write went through; then recorded as written and gated like any release in
 * flight. A control plane that dies right after each write still moves on.
 */
function writtenYet(f: ReleaseFacts, app: PlanApplication): ReleaseMove {
  const live = f.listed;
  if (live === undefined || !writtenAsIntended(live, app))
    return { kind: 'act', state: f.state, action: writeOf(f, app), then: 'progress' };
  return check({ ...f, state: writtenState(f.state, app, live.metadata.uid) });
}

/** A release whose Application is written: what is recorded once the write went through. */
export function writtenState(state: StepState, app: PlanApplication, applicationUID: string | undefined): StepState {
  return {
    ...state,
    ...(applicationUID ? { applicationUID } : {}),
    reason: 'GateNotMet',
    message: `written; waiting for Argo CD to report it synced and healthy at ${revisions(app)}`,
  };
}

/** Done with its write and its report: a manual release then waits for a person (APR-3). */
function finished(f: ReleaseFacts, message: string): ReleaseMove {
  const finishedAt = at(f);
  if (needsAcknowledgement(f.release) && !f.acknowledged) {
    const state: StepState = {
      ...f.state,
      state: 'AwaitingAcknowledgement',
      reason: 'AwaitingAcknowledgement',
      message: `${message}; its recorded steps wait for a person`,
      finishedAt,
    };
    return acknowledgeWait({ ...f, state });
  }
  return { kind: 'done', state: { ...f.state, state: 'Succeeded', reason: 'Done', message, finishedAt } };
}

function acknowledgeWait(f: ReleaseFacts): ReleaseMove {
  if (f.acknowledged) {
    const message = 'its recorded steps were acknowledged';
    return { kind: 'done', state: { ...f.state, state: 'Succeeded', reason: 'Acknowledged', message } };
  }
  const message = awaitingAcknowledgement(f.step.release, f.words.rollout);
  const end: LookEnd = { kind: 'stall', reason: 'AwaitingAcknowledgement', message };
  return { kind: 'end', state: f.state, end };
}

/** Not there yet: past actionTimeout it fails, unless Argo CD's sync windows hold its sync (WIN-3). */
function waitOrFail(f: ReleaseFacts, why: { readonly reason: string; readonly message: string }): ReleaseMove {
  const late = timeLeft(f.state, f.actionTimeoutMs, f.now) < 0;
  if ((late || f.state.reason === OUTSIDE_WINDOW) && syncs(f)) {
    if (f.syncWindow === undefined) return need('syncWindow');
    if (!f.syncWindow.open) return syncHeld(f, f.syncWindow);
  }
  if (late) {
    const message = `${why.message}; the step ran past actionTimeout`;
    const state: StepState = { ...f.state, state: 'Failed', reason: 'ActionTimeout', message, finishedAt: at(f) };
    const step = `step ${f.words.index + 1} (${f.step.action} ${f.step.release})`;
    const failure = `${step} did not finish within actionTimeout: ${why.message}`;
    return { kind: 'fail', state, why: failure };
  }
  return { kind: 'end', state: { ...f.state, reason: why.reason, message: why.message }, end: { kind: 'progress' } };
}

/** Its actionTimeout counts again from the look that finds the windows open. */
function syncHeld(f: ReleaseFacts, window: ClosedWindow): ReleaseMove {
  const state: StepState = {
    ...f.state,
    reason: OUTSIDE_WINDOW,
    message: `written; Argo CD's sync windows hold its sync: ${window.why}`,
    timeoutFrom: at(f),
  };
  return { kind: 'end', state, end: closed(window, 'holds at') };
}

function stall(
  f: ReleaseFacts,
  reason: 'StepUnknown' | 'ChartChanged',
  message: string,
): Extract<ReleaseMove, { kind: 'end' }> {
  return { kind: 'end', state: { ...f.state, reason, message }, end: { kind: 'stall', reason, message } };
}

const lacking = (f: ReleaseFacts): string =>
  `step ${f.words.index + 1} names release ${f.step.release}, which the target plan ${f.words.toPlan} lacks`;

// A step's first move: its gates asked (maintenance window, protected work, chart pins), its start
// recorded before anything is written (write-ahead), then its Application written, adopted or
// asked to be removed. A step found recorded as being written is finished here too.
import type { GenericObject } from '../../kube/kinds.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import { adoptApplication, removeApplication, requestRefresh, writeApplication } from '../io/applicationWrites.ts';
import { writtenAsIntended } from '../rules/drift.ts';
import { STEP_WRITING } from '../rules/progress.ts';
import { kubeTime } from '../../status/conditions.ts';
import { type Next, type Run, fail, intend, progress, setStep, stall, verdictRecorded } from './executeEnds.ts';
import { pinsHeld } from './chartPinCheck.ts';
import { windowOpen } from './windowCheck.ts';
import { workloadsClear } from './workloadCheck.ts';

export async function start(run: Run, i: number): Promise<Next> {
  const step = run.r.spec.steps[i];
  if (!step) return 'next';
  const window = await windowOpen(run, i);
  if (window !== 'open') return window;
  const work = await workloadsClear(run, i);
  if (work !== 'clear') return work;
  const now = kubeTime(run.ctx.now());
  if (step.action === 'Adopt') return adopt(run, i, now);
  if (step.action === 'Remove') return startRemoval(run, i, now);
  const app = run.intended.get(step.release);
  if (!app)
    return stall(
      run,
      i,
      'StepUnknown',
      `step ${i + 1} names release ${step.release}, which the target plan ${run.r.spec.toPlan} lacks; nothing was written for it. Retry the rollout`,
    );
  const pins = await pinsHeld(run, i);
  if (pins !== 'held') return pins;
  setStep(run, i, {
    state: 'InProgress',
    startedAt: now,
    reason: STEP_WRITING,
    message: `being written to Argo CD at ${revisions(app)}`,
  });
  await intend(run, i);
  return write(run, i, app);
}

/** A Remove step: its start recorded, then Argo CD asked to delete the Application and what it deployed. */
async function startRemoval(run: Run, i: number, now: string): Promise<Next> {
  const release = run.r.spec.steps[i]?.release ?? '';
  setStep(run, i, {
    state: 'InProgress',
    startedAt: now,
    reason: 'Removing',
    message: "Argo CD is deleting the release's resources, then the Application",
  });
  await intend(run, i);
  if ((await removeApplication(run.ctx.kube, release, run.r.metadata.name)) === 'gone') {
    setStep(run, i, {
      state: 'Succeeded',
      finishedAt: now,
      reason: 'Removed',
      message: 'the Application was already gone',
    });
    return 'next';
  }
  return progress(run, i);
}

/** The step's Application written, once its start is recorded. */
async function write(run: Run, i: number, app: PlanApplication): Promise<Next> {
  const step = run.r.spec.steps[i];
  const written = await writeApplication(run.ctx.kube, app);
  if (step?.action === 'Upgrade' && step.fromVersion === step.toVersion && !step.valuesChanged)
    await requestRefresh(run.ctx.kube, step.release);
  return recordWritten(run, i, app, written);
}

function recordWritten(run: Run, i: number, app: PlanApplication, written: GenericObject): Promise<Next> {
  setStep(run, i, {
    applicationUID: written.metadata.uid,
    reason: 'GateNotMet',
    message: `written; waiting for Argo CD to report it synced and healthy at ${revisions(app)}`,
  });
  return progress(run, i);
}

/**
 * A step recorded as being written, found so by a later look: the control plane stopped between
 * the record and what follows it. Written again unless the look's listing shows the write went
 * through; then only recorded, so a control plane that keeps dying right after its first write
 * still moves on. (A refresh that write asked for may be lost with it; Argo CD's next periodic
 * comparison gives the gate its report instead.)
 */
export function writeAgain(run: Run, i: number, app: PlanApplication): Promise<Next> {
  const live = listed(run, app.metadata.name);
  return live && writtenAsIntended(live, app) ? recordWritten(run, i, app, live) : write(run, i, app);
}

/** The look's own listing of the named Application. */
export function listed(run: Run, name: string): GenericObject | undefined {
  return run.look.apps.find((a) => a.metadata.name === name);
}

/** An Adopt step changes only the ownership annotations, so it is done once written. */
export async function adopt(run: Run, i: number, now: string): Promise<Next> {
  const release = run.r.spec.steps[i]?.release ?? '';
  // A step found already started (after a crash) keeps the time it started.
  const startedAt = run.states[i]?.startedAt ?? now;
  if (!verdictRecorded(run)) {
    // Write-ahead, as for any step: the verdict is recorded before the first mark moves, so a look
    // after a crash finds the adoption approved and finishes it, rather than judging it again
    // against Applications it has itself begun to move.
    setStep(run, i, {
      state: 'InProgress',
      startedAt: now,
      reason: 'Adopting',
      message: 'its ownership annotations are being moved to this runtime',
    });
    await intend(run, i);
  }
  if ((await adoptApplication(run.ctx.kube, release, run.ctx.runtime.metadata.uid)) === 'gone') {
    setStep(run, i, {
      state: 'Failed',
      startedAt,
      finishedAt: now,
      reason: 'ApplicationMissing',
      message: 'the Application was deleted before it was adopted',
    });
    return fail(run, i, `Application ${release} was deleted before it was adopted`);
  }
  setStep(run, i, {
    state: 'Succeeded',
    startedAt,
    finishedAt: now,
    reason: 'Adopted',
    message: 'its ownership annotations now name this runtime; nothing else changed',
  });
  return 'next';
}

export function revisions(app: PlanApplication): string {
  return (app.spec.source ? [app.spec.source] : (app.spec.sources ?? []))
    .map((s) => `${s.chart} ${s.targetRevision}`)
    .join(' and ');
}

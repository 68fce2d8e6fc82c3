// WIN-1 to WIN-3: a step starts only while the runtime's maintenance windows are open and, for a
// step Argo CD must sync, while the sync windows of the Applications' AppProject let it. A step
// already in flight is never stopped by a window closing; it finishes, and the next one waits.
// The wait needs nobody, and the approval deadline does not apply to an approved rollout.
import { NAMESPACES } from '../../api/constants.ts';
import { KIND } from '../../kube/kinds.ts';
import { type WindowNow, type WindowSource, windowNow } from '../rules/maintenanceSpec.ts';
import { projectWindowsFor } from '../rules/syncWindows.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { Reason } from '../../api/reasons.ts';
import { moveOf, released, type RolloutReport } from '../rules/released.ts';
import { type Run, save, where } from './executeEnds.ts';

export const OUTSIDE_WINDOW = 'OutsideMaintenanceWindow' satisfies Reason;

/** One read of the AppProject per look, however many steps start in it. */
const projectReads = new WeakMap<Run, Promise<unknown>>();

function syncWindowsOf(run: Run): Promise<unknown> {
  let read = projectReads.get(run);
  if (!read) {
    read = run.ctx.kube
      .get(KIND.appProject, run.look.configuration.argocd.project, NAMESPACES.argocd)
      .then((p) => (p?.['spec'] as { syncWindows?: unknown } | undefined)?.syncWindows);
    projectReads.set(run, read);
  }
  return read;
}

/**
 * Whether the AppProject's sync windows let Argo CD sync step `i`'s Application now. Only Install
 * and Upgrade steps need a sync: an Adopt step writes annotations and a Remove step a deletion,
 * which Argo CD's windows do not hold. AppProjects are not watched, so a wait on one looks again
 * at Argo CD's pace, as the engine's state is looked at.
 */
export async function projectWindowNow(run: Run, i: number): Promise<WindowNow> {
  const step = run.r.spec.steps[i];
  const app =
    step && (step.action === 'Install' || step.action === 'Upgrade') ? run.intended.get(step.release) : undefined;
  if (!app) return { open: true };
  const project = run.look.configuration.argocd.project;
  const source: WindowSource = {
    called: `the sync windows of Argo CD's AppProject ${project}`,
    field: `spec.syncWindows of AppProject ${project} (the chart's argocd.syncWindows)`,
  };
  const read = projectWindowsFor(await syncWindowsOf(run), {
    name: app.metadata.name,
    destination: app.spec.destination,
  });
  const recheckAfterMs = run.ctx.timings.engineRecheckMs;
  if (!read.ok)
    return {
      open: false,
      why: `Argo CD refuses to sync Application ${app.metadata.name} while a sync window of AppProject ${project} it falls under is unreadable: ${read.problem}; fix ${source.field}`,
      recheckAfterMs,
    };
  const judged = windowNow(read.windows, run.ctx.now(), source);
  return judged.open
    ? judged
    : { open: false, why: judged.why, recheckAfterMs: Math.min(recheckAfterMs, judged.recheckAfterMs) };
}

function wait(run: Run, i: number, window: Extract<WindowNow, { open: false }>, what: string): Promise<RolloutReport> {
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) ${what} ${where(run, i)}: ${window.why}`;
  return save(run, { state: 'progressing', reason: OUTSIDE_WINDOW, message }, { currentStep: i }).then(() =>
    released('False', OUTSIDE_WINDOW, message, {
      recheckAfterMs: window.recheckAfterMs,
      ...(window.recheckKey ? { recheckKey: window.recheckKey } : {}),
    }),
  );
}

/** 'open' when step `i` may start now; otherwise how this look ends. */
export async function windowOpen(run: Run, i: number): Promise<'open' | RolloutReport> {
  const own = windowNow(run.look.settings.windows, run.ctx.now());
  const window = own.open ? await projectWindowNow(run, i) : own;
  return window.open ? 'open' : wait(run, i, window, 'waits before');
}

/**
 * A step past actionTimeout whose sync Argo CD's windows hold now does not fail: it waits, and
 * its actionTimeout counts again from the look that finds the windows open (`timeoutFrom`).
 */
export async function syncHeld(run: Run, i: number): Promise<'free' | RolloutReport> {
  const window = await projectWindowNow(run, i);
  if (window.open) return 'free';
  const state = run.states[i];
  if (state)
    run.states[i] = {
      ...state,
      reason: OUTSIDE_WINDOW,
      message: `written; Argo CD's sync windows hold its sync: ${window.why}`,
      timeoutFrom: kubeTime(run.ctx.now()),
    };
  return wait(run, i, window, 'holds at');
}

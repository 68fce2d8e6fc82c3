// GPU-1 and GPU-2: before a step of a release that disrupts GPU Nodes, the rollout waits while
// protected work runs on them, and past spec.workloads.maxWait it is Stalled for a person: wait
// longer, or let it go ahead (kubectl aicr approve --disrupt, held to approvers by admission). Pods
// ending wake nothing the control plane watches, so a wait looks again at the engine's pace.
import { formatDuration } from '../../api/duration.ts';
import { type RunningWork, runningWork } from '../io/runningWork.ts';
import { disrupts } from '../rules/workloadGuard.ts';
import type { StepState } from '../rules/progress.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { Reason } from '../../api/reasons.ts';
import { moveOf, released, type RolloutReport } from '../rules/released.ts';
import { type Run, type Shown, save, where } from './executeEnds.ts';

const WAITING = 'WaitingForWorkloads' satisfies Reason;
const STILL_RUNNING = 'WorkloadsStillRunning' satisfies Reason;

async function hold(run: Run, i: number, shown: Shown & { readonly reason: Reason }): Promise<RolloutReport> {
  await save(run, shown, { currentStep: i });
  return released('False', shown.reason, shown.message, { recheckAfterMs: run.ctx.timings.engineRecheckMs });
}

function setSince(run: Run, i: number, since: string | undefined): void {
  const state = run.states[i];
  if (!state) return;
  const next: StepState = { ...state };
  if (since === undefined) delete next.waitingSince;
  else next.waitingSince = since;
  run.states[i] = next;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function podsText(work: RunningWork): string {
  const more = work.count > work.shown.length ? ` and ${work.count - work.shown.length} more` : '';
  return `${plural(work.count, 'protected Pod')} run${work.count === 1 ? 's' : ''} on its ${plural(work.gpuNodes, 'GPU Node')}: ${work.shown.join(', ')}${more}`;
}

/** Whether step `i` is one the guard looks at at all. */
function guarded(run: Run, i: number): boolean {
  const step = run.r.spec.steps[i];
  return (
    step !== undefined &&
    step.action !== 'Adopt' &&
    disrupts(run.look.settings.workloads, step.release) &&
    !run.r.spec.disruption
  );
}

/** 'clear' when step `i` may start now; otherwise how this look ends. */
export async function workloadsClear(run: Run, i: number): Promise<'clear' | RolloutReport> {
  if (!guarded(run, i)) return 'clear';
  const guard = run.look.settings.workloads;
  const head = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) waits before ${where(run, i)}, a release that disrupts GPU Nodes`;
  if (typeof guard === 'string') {
    return hold(run, i, {
      state: 'progressing',
      reason: WAITING,
      message: `${head}: spec.workloads does not validate, so which work is protected is not known; the runtime's Resolved condition names the field to fix`,
    });
  }
  const work = await runningWork(run.ctx.kube, guard);
  if (work.count === 0) {
    setSince(run, i, undefined);
    return 'clear';
  }
  const now = run.ctx.now();
  const since = run.states[i]?.waitingSince ?? kubeTime(now);
  setSince(run, i, since);
  if (now.getTime() - Date.parse(since) >= guard.maxWaitMs) {
    const message = `${head}: ${podsText(work)}, still after spec.workloads.maxWait (${formatDuration(guard.maxWaitMs)}, waiting since ${since}). Let the work end and it goes on by itself, or let it disrupt them with kubectl aicr approve --disrupt ${run.r.metadata.name}; the control plane never evicts`;
    return hold(run, i, { state: 'waiting', reason: STILL_RUNNING, message });
  }
  return hold(run, i, {
    state: 'progressing',
    reason: WAITING,
    message: `${head}: ${podsText(work)}; it starts once they end (waiting since ${since}, at most ${formatDuration(guard.maxWaitMs)} before a person is asked)`,
  });
}

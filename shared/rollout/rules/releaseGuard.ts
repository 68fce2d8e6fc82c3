// GPU-1 and GPU-2 for one release about to start: while protected work runs on the GPU Nodes a
// disruptive release waits, and past spec.workloads.maxWait it stalls for a person (wait longer, or
// kubectl aicr approve --disrupt, held to approvers by admission). The control plane never evicts.
import { formatDuration } from '../../api/duration.ts';
import { UNREADABLE } from '../../api/runtimeReading.ts';
import { kubeTime } from '../../status/conditions.ts';
import {
  waitingForWorkloads,
  waitingForWorkloadsUnknown,
  workloadsStillRunning,
} from '../../status/reasonMessages.released.ts';
import type { StepState } from './progress.ts';
import type { ReleaseFacts, ReleaseMove } from './releaseMoveKinds.ts';
import type { RunningWork } from './workloadGuard.ts';

export type GuardOutcome =
  { readonly kind: 'clear'; readonly state: StepState } | { readonly kind: 'held'; readonly move: ReleaseMove };

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function podsText(work: RunningWork): string {
  const more = work.count > work.shown.length ? ` and ${work.count - work.shown.length} more` : '';
  const runs = work.count === 1 ? 's' : '';
  const where = `on its ${plural(work.gpuNodes, 'GPU Node')}`;
  return `${plural(work.count, 'protected Pod')} run${runs} ${where}: ${work.shown.join(', ')}${more}`;
}

function held(
  state: StepState,
  reason: 'WaitingForWorkloads' | 'WorkloadsStillRunning',
  message: string,
): GuardOutcome {
  return { kind: 'held', move: { kind: 'end', state, end: { kind: 'guard', reason, message } } };
}

export function guardMove(f: ReleaseFacts): GuardOutcome {
  if (!f.guard.applies) return { kind: 'clear', state: f.state };
  const { guard } = f.guard;
  if (guard === UNREADABLE) return held(f.state, 'WaitingForWorkloads', waitingForWorkloadsUnknown(f.words));
  if (f.work === undefined) return { kind: 'held', move: { kind: 'need', fact: 'work' } };
  if (f.work.count === 0) {
    const state: StepState = { ...f.state };
    delete state.waitingSince;
    return { kind: 'clear', state };
  }
  const since = f.state.waitingSince ?? kubeTime(f.now);
  const state: StepState = { ...f.state, waitingSince: since };
  const wait = { pods: podsText(f.work), since, maxWait: formatDuration(guard.maxWaitMs) };
  if (f.now.getTime() - Date.parse(since) >= guard.maxWaitMs)
    return held(state, 'WorkloadsStillRunning', workloadsStillRunning(f.words, wait));
  return held(state, 'WaitingForWorkloads', waitingForWorkloads(f.words, wait));
}

// A release's one write to Argo CD, made once its start is recorded (write-ahead): its Application
// applied as the plan says (with a refresh asked when the write changes nothing Argo CD can see),
// removed, or adopted. An applied Application is recorded as written in the same look, with the
// UID the write returned, so the next look gates it (and reports a hand edit made meanwhile as
// drift, never writing over it); a removal's or an adoption's progress is the next look's to read.
import type { GenericObject } from '../../kube/kinds.ts';
import { adoptApplication, removeApplication, requestRefresh, writeApplication } from '../io/applicationWrites.ts';
import type { StepState } from '../rules/progress.ts';
import type { RolloutReport } from '../rules/released.ts';
import { writtenState } from '../rules/releaseMove.ts';
import type { AfterAct, ReleaseAction } from '../rules/releaseMoveKinds.ts';
import { type Running, progress, recordStart, startedReport } from './lookEnds.ts';

export async function startRelease(
  run: Running,
  states: readonly StepState[],
  i: number,
  move: { readonly action: ReleaseAction; readonly then: AfterAct },
): Promise<RolloutReport> {
  const rollout = await recordStart(run, states, i);
  const { action } = move;
  const release = states[i]?.release ?? '';
  if (action.name !== 'write') {
    await changeApplication(run, release, action);
    return startedReport(run, states, i, move.then);
  }
  const written = await writeApplication(run.ctx.kube, action.app);
  if (action.refresh) await requestRefresh(run.ctx.kube, release);
  return recordWritten({ ...run, r: rollout }, states, i, { app: action.app, written });
}

function recordWritten(
  run: Running,
  states: readonly StepState[],
  i: number,
  { app, written }: { readonly app: Extract<ReleaseAction, { name: 'write' }>['app']; readonly written: GenericObject },
): Promise<RolloutReport> {
  const recorded = states.map((s, k) => (k === i ? writtenState(s, app, written.metadata.uid) : s));
  return progress(run, recorded, i);
}

async function changeApplication(
  run: Running,
  release: string,
  action: Exclude<ReleaseAction, { name: 'write' }>,
): Promise<void> {
  if (action.name === 'remove') await removeApplication(run.ctx.kube, release, run.r.metadata.name);
  else await adoptApplication(run.ctx.kube, release, run.ctx.runtime.metadata.uid);
}

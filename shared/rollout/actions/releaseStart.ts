// A release's one write to Argo CD, made once its start is recorded (write-ahead): its Application
// applied as the plan says (with a refresh asked when the write changes nothing), removed, or
// adopted. What the write did is the next look's to read.
import type { ReleaseAction } from '../rules/releaseMoveKinds.ts';
import { adoptApplication, removeApplication, requestRefresh, writeApplication } from '../io/applicationWrites.ts';
import type { StepState } from '../rules/progress.ts';
import type { RolloutReport } from '../rules/released.ts';
import { type Running, started } from './lookEnds.ts';

export async function startRelease(
  run: Running,
  states: readonly StepState[],
  i: number,
  move: { readonly action: ReleaseAction; readonly end: 'progress' | 'soon' },
): Promise<RolloutReport> {
  const report = await started(run, states, i, move.end);
  await writeFor(run, states[i]?.release ?? '', move.action);
  return report;
}

async function writeFor(run: Running, release: string, action: ReleaseAction): Promise<void> {
  const { kube } = run.ctx;
  switch (action.name) {
    case 'write':
      await writeApplication(kube, action.app);
      if (action.refresh) await requestRefresh(kube, release);
      return;
    case 'remove':
      await removeApplication(kube, release, run.r.metadata.name);
      return;
    case 'adopt':
      await adoptApplication(kube, release, run.ctx.runtime.metadata.uid);
      return;
  }
}

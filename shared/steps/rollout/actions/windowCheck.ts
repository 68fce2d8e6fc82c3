// WIN-1 and WIN-2: a step starts only while the runtime's maintenance windows are open. A step
// already in flight is never stopped by a window closing; it finishes, and the next one waits.
// The wait needs nobody, and the approval deadline does not apply to an approved rollout.
import { windowNow } from '../../../rollouts/maintenanceSpec.ts';
import { moveOf, released, type RolloutReport } from '../report.ts';
import { type Run, save, where } from './executeEnds.ts';

const REASON = 'OutsideMaintenanceWindow';

/** 'open' when step `i` may start now; otherwise how this look ends. */
export async function windowOpen(run: Run, i: number): Promise<'open' | RolloutReport> {
  const window = windowNow(run.look.settings.windows, run.ctx.now());
  if (window.open) return 'open';
  const message = `rollout ${run.r.metadata.name} (${moveOf(run.r)}) waits before ${where(run, i)}: ${window.why}`;
  await save(run, { state: 'progressing', reason: REASON, message }, { currentStep: i });
  return released('False', REASON, message, { recheckAfterMs: window.recheckAfterMs, ...(window.recheckKey ? { recheckKey: window.recheckKey } : {}) });
}

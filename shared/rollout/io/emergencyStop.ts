// The emergency stop as the rollout step runs it (ENG-2). It is the one write that comes before
// the decision, since it must hold whatever the decision is: the owned Applications are switched
// to what spec.suspendEngine asks, and while the stop holds, or a switch was refused, Argo CD
// counts as unavailable in the look the decision is made from, so no rollout step writes (ENG-1).
import { recordEvent } from '../../events/recorder.ts';
import type { Engine } from './engine.ts';
import { settleSuspension } from './suspension.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutLook } from './look.ts';
import { engineSuspended, engineSuspensionRefused } from '../../status/reasonMessages.engine.ts';

export const EVENT_SUSPENSION_REFUSED = 'EngineSuspensionRefused';

/** Switches the Applications, and says what Argo CD's availability is once the stop is counted. */
export async function applyEmergencyStop(ctx: StepContext, look: RolloutLook): Promise<Engine> {
  const { engine } = look;
  const suspend = look.settings.suspendEngine;
  if (!look.served) return engine;
  const s = await settleSuspension(ctx.kube, look.apps, suspend);
  const base = { kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() };
  for (const r of s.refused)
    await recordEvent(base, {
      type: 'Warning',
      reason: EVENT_SUSPENSION_REFUSED,
      message: `the API server refused ${r.message}`,
    });
  if (s.refused.length > 0) {
    const message = engineSuspensionRefused({
      suspend,
      apps: s.refused.map((r) => r.app),
      refusals: s.refused.map((r) => r.message),
    });
    return { available: false, message, suspension: 'EngineSuspensionRefused' };
  }
  if (!suspend || !engine.available) return engine;
  return { available: false, message: engineSuspended(s.off), suspension: 'EngineSuspended' };
}

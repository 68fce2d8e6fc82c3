// The emergency stop as the rollout step runs it (ENG-2), before it decides anything else: the
// owned Applications are switched to what spec.suspendEngine asks, and while the stop holds, or
// a switch was refused, Argo CD counts as unavailable, so no rollout step writes (ENG-1).
import { NAMESPACES } from '../../api/constants.ts';
import { recordEvent } from '../../events/recorder.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { Engine } from '../../rollouts/engine.ts';
import { settleSuspension } from '../../rollouts/suspension.ts';
import type { StepContext } from '../types.ts';

export const EVENT_SUSPENSION_REFUSED = 'EngineSuspensionRefused';

/** Read from the raw spec: an emergency stop must work even when another field does not validate. */
function suspendWanted(ctx: StepContext): boolean {
  return (ctx.runtime.spec as { suspendEngine?: unknown } | undefined)?.suspendEngine === true;
}

/** Switches the Applications, and says what Argo CD's availability is once the stop is counted. */
export async function applySuspension(ctx: StepContext, apps: readonly GenericObject[] | undefined, engine: Engine): Promise<Engine> {
  const suspend = suspendWanted(ctx);
  if (!apps) return engine;
  const s = await settleSuspension(ctx.kube, apps, suspend);
  const base = { kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() };
  for (const r of s.refused) await recordEvent(base, { type: 'Warning', reason: EVENT_SUSPENSION_REFUSED, message: `the API server refused ${r.message}` });
  if (s.refused.length > 0) {
    const names = s.refused.map((r) => r.app).join(', ');
    const what = suspend ? 'off for spec.suspendEngine: during the emergency stop it keeps syncing' : 'back on after spec.suspendEngine: it stays without automated sync';
    const message = `the API server refused for good to turn automated sync ${what}: Application ${names} in ${NAMESPACES.argocd} (${s.refused.map((r) => r.message).join('; ')}). Undo the outside edit to it, or the admission policy that refuses it; this is tried again on every reconcile, and no rollout step starts until it succeeds`;
    return { available: false, message, suspension: 'EngineSuspensionRefused' };
  }
  if (!suspend || !engine.available) return engine;
  const message = `spec.suspendEngine is true: automated sync is off on ${s.off} owned Application${s.off === 1 ? '' : 's'}, so Argo CD applies nothing by itself, and no rollout step writes to it. Set spec.suspendEngine to false to turn it back on as the plans say`;
  return { available: false, message, suspension: 'EngineSuspended' };
}

// Deleting a runtime with deletionPolicy Orphan (FIN-2): the releases keep running and Argo CD
// keeps reconciling them. Every owned Application is marked with the deleted runtime's UID
// (operator.aicr.run/orphaned-from) and nothing else on it changes; unfinished rollouts end
// Orphaned; then the cleanup finalizer comes off.
import { ANNOTATION, KINDS, NAMESPACES } from '../../api/constants.ts';
import { EVENT_REASON, recordEvent } from '../../events/recorder.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { releaseCleanup } from '../io/cleanupFinalizer.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { endRollout, noteRollout } from '../io/record.ts';
import { type RolloutReport, moveOf } from '../rules/released.ts';

async function markOrphaned(kube: KubePort, app: GenericObject, uid: string): Promise<void> {
  if (app.metadata.annotations?.[ANNOTATION.orphanedFrom] === uid) return;
  await kube.patch(KIND.application, app.metadata.name, NAMESPACES.argocd, {
    metadata: { annotations: { [ANNOTATION.orphanedFrom]: uid } },
  });
}

function orphanedMessage(ctx: StepContext, apps: readonly GenericObject[], ended: number): string {
  const uid = ctx.runtime.metadata.uid;
  const names = apps.map((a) => a.metadata.name).join(', ') || 'none';
  const rollouts = ended > 0 ? `; ${ended} unfinished rollout${ended === 1 ? '' : 's'} ended Orphaned` : '';
  return (
    `${KINDS.clusterRuntime.kind} ${ctx.runtime.metadata.name} was deleted with deletionPolicy Orphan: ` +
    `${apps.length} Application${apps.length === 1 ? '' : 's'} (${names}) keep running, ` +
    `marked ${ANNOTATION.orphanedFrom}=${uid}${rollouts}. A new runtime adopts them through ` +
    `spec.adoption.runtimeUID: ${uid}`
  );
}

const endedMessage = (r: RolloutObject): string =>
  `rollout ${r.metadata.name} (${moveOf(r)}) ended Orphaned: its runtime was deleted with deletionPolicy ` +
  'Orphan, so nothing more is written; releases it moved stay where they are';

/**
 * Each rollout's Event is told before its status ends it: the rollout goes with its runtime, so a
 * pass cut short between the two would leave nothing that says how it ended. Told first, a pass cut
 * short only tells it again, which raises the Event's count; the deletion cannot be undone, so the
 * ending it announces always follows. `orphaned` (ended by an earlier pass) only counts.
 */
export async function orphanEverything(
  ctx: StepContext,
  look: RolloutLook,
  {
    unfinished,
    orphaned,
  }: { readonly unfinished: readonly RolloutObject[]; readonly orphaned: readonly RolloutObject[] },
): Promise<RolloutReport> {
  for (const app of look.apps) await markOrphaned(ctx.kube, app, ctx.runtime.metadata.uid);
  for (const r of unfinished) {
    const message = endedMessage(r);
    await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.runtimeOrphaned, message });
    await endRollout(ctx, r, { outcome: 'Orphaned', message, keep: { ...r.status }, event: false });
  }
  await recordEvent(
    { kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() },
    {
      type: 'Normal',
      reason: EVENT_REASON.runtimeOrphaned,
      message: orphanedMessage(ctx, look.apps, unfinished.length + orphaned.length),
    },
  );
  await releaseCleanup(ctx.kube, ctx.runtime);
  return {};
}

/** The runbook's contract: on this path a failed listing shows only in the log. */
export function waitToOrphan(ctx: StepContext): RolloutReport {
  ctx.log.warn(
    "deletion waits: Argo CD's Application API is not served, so the runtime's Applications cannot be marked orphaned",
    { runtime: ctx.runtime.metadata.name },
  );
  return { recheckAfterMs: ctx.timings.engineRecheckMs };
}

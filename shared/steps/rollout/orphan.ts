// Deleting a runtime with deletionPolicy Orphan (FIN-2): the releases keep running and Argo CD
// keeps reconciling them. Every owned Application is marked with the deleted runtime's UID
// (operator.aicr.run/orphaned-from) and nothing else on it changes; unfinished rollouts end
// Orphaned; then the cleanup finalizer comes off. A plan that does not read back blocks it, since
// this control plane may be older than what wrote it.
import { ANNOTATION, KINDS, NAMESPACES } from '../../api/constants.ts';
import { EVENT_REASON, recordEvent } from '../../events/recorder.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { readPlanConfigMap } from '../../plans/store.ts';
import { releaseCleanup } from '../../rollouts/cleanupFinalizer.ts';
import { type RolloutObject, rolloutConditions, rolloutState, writeRolloutStatus } from '../../rollouts/objects.ts';
import type { StepContext, StepReport } from '../types.ts';
import type { DeletionLook } from './deletion.ts';
import { moveOf, noteRollout, released } from './report.ts';

/** Why the active plan blocks the orphaning, if it is there and does not read back. */
async function unreadableActive(ctx: StepContext): Promise<string | undefined> {
  const active = (ctx.runtime.status as { activePlan?: unknown } | undefined)?.activePlan;
  if (typeof active !== 'string' || active === '') return undefined;
  const cm = await ctx.kube.get(KIND.configMap, active, NAMESPACES.system);
  if (!cm) return undefined;
  const read = readPlanConfigMap(cm);
  return read.ok ? undefined : read.problem;
}

async function markOrphaned(kube: KubePort, app: GenericObject, uid: string): Promise<void> {
  if (app.metadata.annotations?.[ANNOTATION.orphanedFrom] === uid) return;
  await kube.patch(KIND.application, app.metadata.name, NAMESPACES.argocd, { metadata: { annotations: { [ANNOTATION.orphanedFrom]: uid } } });
}

async function endOrphaned(ctx: StepContext, r: RolloutObject): Promise<void> {
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) ended Orphaned: its runtime was deleted with deletionPolicy Orphan, so nothing more is written; releases it moved stay where they are`;
  await writeRolloutStatus(ctx.kube, r, { ...r.status, conditions: rolloutConditions(r, rolloutState('stalled', 'Orphaned', message), ctx.now()), outcome: 'Orphaned' });
  await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.runtimeOrphaned, message });
}

function orphanedMessage(ctx: StepContext, apps: readonly GenericObject[], ended: number): string {
  const uid = ctx.runtime.metadata.uid;
  const names = apps.map((a) => a.metadata.name).join(', ') || 'none';
  const rollouts = ended > 0 ? `; ${ended} unfinished rollout${ended === 1 ? '' : 's'} ended Orphaned` : '';
  return `${KINDS.clusterRuntime.kind} ${ctx.runtime.metadata.name} was deleted with deletionPolicy Orphan: ${apps.length} Application${apps.length === 1 ? '' : 's'} (${names}) keep running, marked ${ANNOTATION.orphanedFrom}=${uid}${rollouts}. A new runtime adopts them through spec.adoption.runtimeUID: ${uid}`;
}

export async function orphanEverything(ctx: StepContext, look: DeletionLook): Promise<StepReport> {
  if (!look.served) {
    // The runbook's contract: on this path a failed listing shows only in the log.
    ctx.log.warn("deletion waits: Argo CD's Application API is not served, so the runtime's Applications cannot be marked orphaned", { runtime: ctx.runtime.metadata.name });
    return { recheckAfterMs: ctx.timings.engineRecheckMs };
  }
  const unreadable = await unreadableActive(ctx);
  if (unreadable) {
    return released('False', 'PlanUnreadable', `the deletion (deletionPolicy Orphan) waits: ${unreadable}. Nothing is marked orphaned while the active plan does not read back; upgrade the control plane to the version that wrote it, or remove the finalizer by hand (docs/deletion.md)`);
  }
  for (const app of look.apps) await markOrphaned(ctx.kube, app, ctx.runtime.metadata.uid);
  const unfinished = look.rollouts.filter((r) => !r.status?.outcome);
  for (const r of unfinished) await endOrphaned(ctx, r);
  await recordEvent({ kube: ctx.kube, runtime: ctx.runtime, reporter: 'rollout', now: ctx.now() }, { type: 'Normal', reason: EVENT_REASON.runtimeOrphaned, message: orphanedMessage(ctx, look.apps, unfinished.length) });
  await releaseCleanup(ctx.kube, ctx.runtime);
  return {};
}

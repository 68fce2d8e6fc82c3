// Deleting a runtime with deletionPolicy Delete (FIN-3): one removal rollout deletes every owned
// release in reverse deployment order through the Remove steps (Argo CD's resources finalizer and
// the delete-rollout annotation, delete, wait until gone). It always needs an approver and holds
// while the runtime is paused or the engine suspended. When it fails, expires or is revoked the
// runtime keeps its cleanup finalizer and shows RemovalFailed until kubectl aicr retry.
import { ANNOTATION } from '../../api/constants.ts';
import type { RolloutStep, RuntimeRolloutSpec } from '../../api/runtimeRollout.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import { planName } from '../../plans/digest.ts';
import { releaseCleanup } from '../../rollouts/cleanupFinalizer.ts';
import { inventoryDigest } from '../../rollouts/inventory.ts';
import { parseRollout, type RolloutObject, rolloutManifest, rolloutState, rolloutConditions, writeRolloutStatus } from '../../rollouts/objects.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { StepContext, StepReport } from '../types.ts';
import { approvalMs } from './create.ts';
import type { DeletionLook } from './deletion.ts';
import { follow } from './follow.ts';
import { moveOf, noteRollout, released, stepSummary } from './report.ts';
import { retryRequested, revoke, supersedeForRetry } from './requests.ts';

const WHY = "removing a release deletes its resources from the cluster, so a removal always needs an approver";
const ENDED_BADLY = new Set(['Failed', 'Expired', 'Revoked']);

/** Highest deployment order first; an order that does not read goes first, as the newest would. */
export function removalOrder(apps: readonly GenericObject[]): GenericObject[] {
  const order = (a: GenericObject): number => {
    const n = Number.parseInt(a.metadata.annotations?.[ANNOTATION.releaseOrder] ?? '', 10);
    return Number.isNaN(n) ? Number.POSITIVE_INFINITY : n;
  };
  return [...apps].sort((a, b) => order(b) - order(a) || b.metadata.name.localeCompare(a.metadata.name));
}

/** The plan the removal names: the active one, else the one the Applications record. */
function planOf(ctx: StepContext, apps: readonly GenericObject[]): string | undefined {
  const active = (ctx.runtime.status as { activePlan?: unknown } | undefined)?.activePlan;
  if (typeof active === 'string' && active !== '') return active;
  const digest = apps.map((a) => a.metadata.annotations?.[ANNOTATION.planDigest]).find((d) => d !== undefined && d !== '');
  return digest ? planName(digest) : undefined;
}

async function createRemoval(ctx: StepContext, apps: readonly GenericObject[], plan: string): Promise<RolloutObject> {
  const now = ctx.now();
  const steps: RolloutStep[] = removalOrder(apps).map((a) => ({ release: a.metadata.name, action: 'Remove', verdict: 'unknown', why: WHY }));
  const spec: RuntimeRolloutSpec = { runtimeUID: ctx.runtime.metadata.uid, type: 'Remove', fromPlan: plan, toPlan: plan, steps, inventory: inventoryDigest(apps), deadline: kubeTime(new Date(now.getTime() + approvalMs(ctx))) };
  const name = `aicr-removal-${ctx.runtime.metadata.uid.slice(0, 8)}-${Math.floor(now.getTime() / 1000).toString(36)}`;
  const created = parseRollout(await ctx.kube.create(KIND.runtimeRollout, rolloutManifest(name, spec, ctx.runtime.metadata)));
  if (!created) throw new Error('the API server returned a RuntimeRollout that does not fit its schema');
  await noteRollout(ctx, created, { type: 'Normal', reason: EVENT_REASON.rolloutCreated, message: `the runtime was deleted with deletionPolicy Delete: ${moveOf(created)}, ${stepSummary(created)}` });
  return created;
}

function removalFailed(r: RolloutObject, message: string): StepReport {
  return released('False', 'RemovalFailed', `${message}. The runtime keeps its cleanup finalizer until the removal succeeds: fix the cause, then kubectl aicr retry ${r.metadata.name}`);
}

async function endedCleanly(ctx: StepContext, r: RolloutObject): Promise<StepReport> {
  await releaseCleanup(ctx.kube, ctx.runtime);
  await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.runtimeRemoved, message: `every release was removed by ${r.metadata.name}; the cleanup finalizer is off and the runtime goes` });
  return {};
}

/** One look at the removal in flight: a person's request, the approval, the Remove steps. */
async function followRemoval(ctx: StepContext, r: RolloutObject, look: DeletionLook): Promise<StepReport | undefined> {
  if (r.spec.retry) {
    await supersedeForRetry(ctx, r);
    return undefined;
  }
  const report = r.spec.revocation ? await revoke(ctx, r) : await follow(ctx, r, { inventory: inventoryDigest(look.apps), apps: look.apps, engine: look.engine });
  const c = report.conditions?.[0];
  if (c?.reason === 'Released') return endedCleanly(ctx, r);
  if (c && ['RolloutFailed', 'RolloutExpired', 'RolloutRevoked'].includes(c.reason)) return removalFailed(r, c.message);
  return report;
}

async function supersedeOthers(ctx: StepContext, look: DeletionLook): Promise<void> {
  for (const r of look.rollouts.filter((x) => !x.status?.outcome && x.spec.type !== 'Remove')) {
    const message = `rollout ${r.metadata.name} (${moveOf(r)}) is superseded: the runtime was deleted with deletionPolicy Delete, so a removal replaces it`;
    await writeRolloutStatus(ctx.kube, r, { ...r.status, conditions: rolloutConditions(r, rolloutState('stalled', 'Superseded', message), ctx.now()), outcome: 'Superseded' });
    await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.rolloutSuperseded, message });
  }
}

/** The last removal's say: followed while unfinished, RemovalFailed once it ended badly and nobody asked to retry. */
async function lastRemoval(ctx: StepContext, look: DeletionLook): Promise<StepReport | undefined> {
  const last = look.rollouts.filter((r) => r.spec.type === 'Remove').at(-1);
  if (!last) return undefined;
  if (!last.status?.outcome) return followRemoval(ctx, last, look);
  if (!ENDED_BADLY.has(last.status.outcome) || retryRequested(last)) return undefined;
  const c = last.status.conditions?.find((x) => x.type === 'Ready');
  return removalFailed(last, c?.message ?? `removal ${last.metadata.name} ended ${last.status.outcome}`);
}

export async function removeEverything(ctx: StepContext, look: DeletionLook): Promise<StepReport> {
  await supersedeOthers(ctx, look);
  const said = await lastRemoval(ctx, look);
  if (said) return said;
  if (!look.served) return released('False', 'RolloutProgressing', "the deletion (deletionPolicy Delete) waits: Argo CD's Application API is not served, so the releases to remove cannot be listed", { recheckAfterMs: ctx.timings.engineRecheckMs });
  const plan = planOf(ctx, look.apps);
  if (look.apps.length === 0 || !plan) {
    await releaseCleanup(ctx.kube, ctx.runtime);
    return {};
  }
  const created = await createRemoval(ctx, look.apps, plan);
  return (await followRemoval(ctx, created, look)) ?? {};
}

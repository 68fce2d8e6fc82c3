// Applications another runtime wrote (ADO-1, ADO-3, ADO-4). They are never taken silently: while
// any are present that spec.adoption does not name, the runtime stalls with
// OrphanedObjectsPresent and nothing is written to Argo CD. Naming their runtime's UID rebuilds
// the plan from the Applications alone and makes an Adopt rollout whose only change is the
// ownership annotations; it needs an approver. Applications that do not rebuild into a plan,
// or rebuild into another plan than the one they record, are AdoptionBlocked.
import { ClusterRuntimeSpecSchema } from '../../api/clusterRuntime.ts';
import { ANNOTATION, KINDS } from '../../api/constants.ts';
import type { RolloutStep, RuntimeRolloutSpec } from '../../api/runtimeRollout.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import { applicationsDigest } from '../../plans/applicationsRead.ts';
import { planName } from '../../plans/digest.ts';
import { inventoryDigest } from '../../rollouts/inventory.ts';
import { parseRollout, type RolloutObject, rolloutManifest, rolloutName } from '../../rollouts/objects.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { StepContext, StepReport } from '../types.ts';
import { approvalMs } from './create.ts';
import type { DeletionLook } from './deletion.ts';
import { follow } from './follow.ts';
import { noteRollout, released, stepSummary } from './report.ts';
import { retryRequested, supersedeForRetry } from './requests.ts';

const NO_UID = '(none)';
const WHY = 'adoption takes over Applications another runtime wrote; only their ownership annotations change, and a person confirms this is the stack to manage';

/** Managed Applications of other runtimes, by the runtime UID they record. */
export function foreignOf(managed: readonly GenericObject[], runtimeUID: string): Map<string, GenericObject[]> {
  const out = new Map<string, GenericObject[]>();
  for (const app of managed) {
    const uid = app.metadata.annotations?.[ANNOTATION.runtimeUID] || NO_UID;
    if (uid !== runtimeUID) out.set(uid, [...(out.get(uid) ?? []), app]);
  }
  return out;
}

function adoptionUID(ctx: StepContext): string | undefined {
  const spec = ClusterRuntimeSpecSchema.safeParse(ctx.runtime.spec);
  return spec.success ? spec.data.adoption?.runtimeUID : undefined;
}

function orphansPresent(ctx: StepContext, others: readonly [string, GenericObject[]][]): StepReport {
  const list = others.map(([uid, apps]) => `runtime ${uid}: ${apps.map((a) => a.metadata.name).sort().join(', ')}`).join('; ');
  const first = others[0]?.[0] ?? '<uid>';
  const patch = `kubectl patch ${KINDS.clusterRuntime.kind.toLowerCase()} ${ctx.runtime.metadata.name} --type merge -p '{"spec":{"adoption":{"runtimeUID":"${first}"}}}'`;
  return released('False', 'OrphanedObjectsPresent', `Argo CD holds Applications another runtime wrote (${list}). Nothing is adopted silently and nothing is written to Argo CD meanwhile. To take them over, name their runtime: ${patch}; to leave them unmanaged, delete them (their resources keep running)`);
}

/** Why the Applications cannot be adopted as they stand, or the plan they rebuild into. */
function rebuild(uid: string, apps: readonly GenericObject[]): { blocked: string } | { digest: string; plans: string[] } {
  const rebuilt = applicationsDigest(apps);
  if (!rebuilt.ok) return { blocked: `the Applications of runtime ${uid} do not rebuild into a plan: ${rebuilt.problems.join('; ')}` };
  const plans = [...new Set(apps.map((a) => a.metadata.annotations?.[ANNOTATION.planDigest] ?? ''))].sort();
  if (plans.length === 1 && plans[0] !== rebuilt.digest) {
    const names = apps.map((a) => a.metadata.name).sort().join(', ');
    return { blocked: `Applications ${names} record plan digest ${plans[0]}, but what they carry now rebuilds into ${rebuilt.digest}: one was edited outside the control plane (values, chart or namespace) or deleted since` };
  }
  return { digest: rebuilt.digest, plans };
}

async function createAdoption(ctx: StepContext, apps: readonly GenericObject[], rebuilt: { digest: string; plans: string[] }): Promise<RolloutObject> {
  const now = ctx.now();
  const toPlan = planName(rebuilt.digest);
  const ordered = [...apps].sort((a, b) => Number(a.metadata.annotations?.[ANNOTATION.releaseOrder] ?? 0) - Number(b.metadata.annotations?.[ANNOTATION.releaseOrder] ?? 0) || a.metadata.name.localeCompare(b.metadata.name));
  const steps: RolloutStep[] = ordered.map((a) => ({ release: a.metadata.name, action: 'Adopt', verdict: 'unknown', why: WHY }));
  const spec: RuntimeRolloutSpec = { runtimeUID: ctx.runtime.metadata.uid, type: 'Adopt', toPlan, steps, inventory: inventoryDigest(apps), deadline: kubeTime(new Date(now.getTime() + approvalMs(ctx))) };
  const created = parseRollout(await ctx.kube.create(KIND.runtimeRollout, rolloutManifest(rolloutName(toPlan, now).replace(/^aicr-rollout-/, 'aicr-adopt-'), spec, ctx.runtime.metadata)));
  if (!created) throw new Error('the API server returned a RuntimeRollout that does not fit its schema');
  const wrote = rebuilt.plans.length === 1 ? `every one was written by one plan (${planName(rebuilt.plans[0] ?? '')})` : `they were written by ${rebuilt.plans.length} plans (${rebuilt.plans.map(planName).join(', ')}), as after an orphaning mid-rollout`;
  await noteRollout(ctx, created, { type: 'Normal', reason: EVENT_REASON.rolloutCreated, message: `adoption of ${apps.length} Applications as plan ${toPlan}: ${wrote}; ${stepSummary(created)}` });
  return created;
}

function endedBadly(r: RolloutObject): StepReport | undefined {
  const outcome = r.status?.outcome;
  if ((outcome !== 'Failed' && outcome !== 'Expired' && outcome !== 'Revoked') || retryRequested(r)) return undefined;
  const reason = outcome === 'Expired' ? 'RolloutExpired' : outcome === 'Failed' ? 'RolloutFailed' : 'RolloutRevoked';
  return released('False', reason, r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? `adoption ${r.metadata.name} ended ${outcome}`);
}

async function adopt(ctx: StepContext, uid: string, apps: readonly GenericObject[], look: DeletionLook): Promise<StepReport> {
  const last = look.rollouts.filter((r) => r.spec.type === 'Adopt').at(-1);
  const inventory = inventoryDigest(apps);
  if (last && !last.status?.outcome && !last.spec.retry) return follow(ctx, last, { inventory, apps, engine: look.engine });
  if (last?.spec.retry && !last.status?.outcome) await supersedeForRetry(ctx, last);
  const ended = last ? endedBadly(last) : undefined;
  if (ended) return ended;
  const rebuilt = rebuild(uid, apps);
  if ('blocked' in rebuilt) return released('False', 'AdoptionBlocked', `${rebuilt.blocked}. Undo the change; the control plane does not adopt a stack it cannot verify`);
  const created = await createAdoption(ctx, apps, rebuilt);
  return follow(ctx, created, { inventory, apps, engine: look.engine });
}

/** What other runtimes' Applications mean for this look; undefined when there are none. */
export function foreignReport(ctx: StepContext, foreign: ReadonlyMap<string, GenericObject[]>, look: DeletionLook): Promise<StepReport> | undefined {
  if (foreign.size === 0) return undefined;
  const named = adoptionUID(ctx);
  const others = [...foreign.entries()].filter(([uid]) => uid !== named);
  if (others.length > 0) return Promise.resolve(orphansPresent(ctx, others));
  return adopt(ctx, named ?? '', foreign.get(named ?? '') ?? [], look);
}

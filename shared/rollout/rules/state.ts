// Decide, part one: the state the runtime's rollouts are in, named from one look and the time
// alone. Nothing here reads or writes; actionFor (actions.ts) picks what one state calls for.
import { ANNOTATION } from '../../api/constants.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { applicationsDigest } from '../../plans/applicationsRead.ts';
import { planName } from '../../plans/digest.ts';
import { REFUSAL, judgeApproval } from './approval.ts';
import { assess } from './assess.ts';
import type { Engine } from '../io/engine.ts';
import { inventoryDigest, inventoryOf } from './inventory.ts';
import { missingReleases } from './missingReleases.ts';
import type { RolloutObject } from './rolloutObject.ts';
import { holdsCleanup } from '../io/cleanupFinalizer.ts';
import type { PlanRead, RolloutLook } from '../io/look.ts';
import type { Approval, Badly, Decided, Rebuilt, RolloutState, Supersession } from './stateKinds.ts';

const BADLY: ReadonlySet<string> = new Set(['Failed', 'Expired', 'Revoked']);

/** The outcome of a rollout that ended without success and whose retry nobody asked for. */
export function endedBadly(r: RolloutObject | undefined): Badly | undefined {
  const outcome = r?.status?.outcome;
  return outcome !== undefined && BADLY.has(outcome) && r?.spec.retry === undefined ? (outcome as Badly) : undefined;
}

const live = (r: RolloutObject): boolean => !r.status?.outcome;

function retryWhy(r: RolloutObject): string {
  const by = r.spec.retry;
  return (
    `${by?.requestedBy ?? 'someone'} asked for a retry at ${by?.requestedAt ?? 'an unknown time'}, ` +
    'so a new rollout from the current state replaces it and needs its own approval'
  );
}

/**
 * APR-1 holds only steps not assessed safe: a rollout aicr upgrade-check assessed safe throughout
 * needs no approver.
 */
function allSafe(r: RolloutObject): boolean {
  return r.spec.steps.length > 0 && r.spec.steps.every((s) => s.verdict === 'safe');
}

function suspensionRefused(engine: Engine): string | undefined {
  return !engine.available && engine.suspension === REFUSAL.suspensionRefused ? engine.message : undefined;
}

/** The approval of a rollout that has not ended, judged against the look (APR-1, APR-2). */
export function approvalOf(
  r: RolloutObject,
  look: Pick<RolloutLook, 'inventory' | 'staleCredentials' | 'engine'>,
  now: Date,
): Approval {
  if (allSafe(r) && !r.spec.approval) return { phase: 'AssessedSafe' };
  const judgement = judgeApproval({
    rollout: r,
    inventory: look.inventory,
    staleCredentials: look.staleCredentials,
    suspensionRefused: suspensionRefused(look.engine),
  });
  if (judgement.state === 'Accepted') return { phase: 'Accepted', judgement };
  if (judgement.state === 'Refused') return { phase: 'Refused', judgement };
  const deadline = Date.parse(r.spec.deadline ?? '') || Number.POSITIVE_INFINITY;
  return now.getTime() >= deadline ? { phase: 'Expired' } : { phase: 'AwaitingApproval' };
}

/** The plan a removal names: the active one, else the one the Applications record. */
function removalPlan(look: RolloutLook): string | undefined {
  if (look.activePlan) return look.activePlan;
  const digest = look.apps
    .map((a) => a.metadata.annotations?.[ANNOTATION.planDigest])
    .find((d) => d !== undefined && d !== '');
  return digest ? planName(digest) : undefined;
}

function removal(look: RolloutLook, now: Date): Decided {
  const stale = look.rollouts
    .filter((r) => live(r) && r.spec.type !== 'Remove')
    .map((rollout) => ({
      rollout,
      why: 'the runtime was deleted with deletionPolicy Delete, so a removal replaces it',
    }));
  const last = look.rollouts.filter((r) => r.spec.type === 'Remove').at(-1);
  const decided = (state: RolloutState, more: readonly Supersession[] = []): Decided => ({
    state,
    supersede: [...stale, ...more],
  });
  const retried: Supersession[] = [];
  if (last && live(last)) {
    if (last.spec.retry) retried.push({ rollout: last, why: retryWhy(last) });
    else if (last.spec.revocation) return decided({ kind: 'RemovalRevoked', rollout: last });
    else return decided({ kind: 'RemovalInFlight', rollout: last, approval: approvalOf(last, look, now) });
  }
  const badly = retried.length === 0 ? endedBadly(last) : undefined;
  if (last && badly) return decided({ kind: 'RemovalFailed', rollout: last, outcome: badly });
  if (!look.served) return decided({ kind: 'RemovalWaitsForApi' }, retried);
  const plan = removalPlan(look);
  if (look.apps.length === 0 || !plan) return decided({ kind: 'NothingToRemove' }, retried);
  return decided({ kind: 'RemovalDue', plan }, retried);
}

function deletion(look: RolloutLook, now: Date): Decided {
  const none: Supersession[] = [];
  if (look.newer.length > 0 && holdsCleanup(look.runtime))
    return { state: { kind: 'DeletionWaitsForNewer' }, supersede: none };
  if (!holdsCleanup(look.runtime)) return { state: { kind: 'DeletionLeftAlone' }, supersede: none };
  if (look.settings.deletionPolicy === 'Delete') return removal(look, now);
  if (!look.served) return { state: { kind: 'OrphanWaitsForApi' }, supersede: none };
  if (look.active?.state === 'unreadable')
    return { state: { kind: 'OrphanBlocked', problem: look.active.problem }, supersede: none };
  return {
    state: {
      kind: 'Orphaning',
      unfinished: look.rollouts.filter(live),
      orphaned: look.rollouts.filter((r) => r.status?.outcome === 'Orphaned'),
    },
    supersede: none,
  };
}

/** Why the Applications cannot be adopted as they stand, or the plan they rebuild into. */
function rebuild(uid: string, apps: readonly GenericObject[]): { readonly blocked: string } | Rebuilt {
  const rebuilt = applicationsDigest(apps);
  if (!rebuilt.ok)
    return { blocked: `the Applications of runtime ${uid} do not rebuild into a plan: ${rebuilt.problems.join('; ')}` };
  const plans = [...new Set(apps.map((a) => a.metadata.annotations?.[ANNOTATION.planDigest] ?? ''))].sort();
  if (plans.length === 1 && plans[0] !== rebuilt.digest) {
    const names = apps
      .map((a) => a.metadata.name)
      .sort()
      .join(', ');
    return {
      blocked:
        `Applications ${names} record plan digest ${plans[0]}, but what they carry now rebuilds into ` +
        `${rebuilt.digest}: one was edited outside the control plane (values, chart or namespace) or deleted since`,
    };
  }
  return { digest: rebuilt.digest, plans };
}

/** ADO-1, ADO-3, ADO-4: another runtime's Applications are adopted only when spec.adoption names that runtime. */
function adoption(look: RolloutLook, now: Date): Decided {
  const named = look.settings.adoptionUID;
  const others = [...look.foreign.entries()].filter(([uid]) => uid !== named);
  const none: Supersession[] = [];
  if (others.length > 0) return { state: { kind: 'OrphansPresent', others }, supersede: none };
  const uid = named ?? '';
  const apps = look.foreign.get(uid) ?? [];
  const last = look.rollouts.filter((r) => r.spec.type === 'Adopt').at(-1);
  const retried: Supersession[] = [];
  if (last && live(last)) {
    // Its approval is judged against the Applications it adopts, which this runtime does not own yet.
    if (!last.spec.retry)
      return {
        state: {
          kind: 'AdoptionInFlight',
          rollout: last,
          approval: approvalOf(last, { ...look, inventory: inventoryDigest(apps) }, now),
          apps,
        },
        supersede: none,
      };
    retried.push({ rollout: last, why: retryWhy(last) });
  }
  const badly = retried.length === 0 ? endedBadly(last) : undefined;
  if (last && badly) return { state: { kind: 'AdoptionEnded', rollout: last, outcome: badly }, supersede: none };
  const rebuilt = rebuild(uid, apps);
  if ('blocked' in rebuilt) return { state: { kind: 'AdoptionBlocked', why: rebuilt.blocked }, supersede: retried };
  return { state: { kind: 'AdoptionDue', apps, rebuilt }, supersede: retried };
}

/**
 * Whether the owned Applications carry every release of the plan and nothing else. A plan that
 * cannot be read counts as carried: there is nothing to roll back to, and the step that reads it
 * for a rollout says why. So does a release whose Application was deleted while nothing was
 * moving it: the drift check writes it again from the plan, without a rollout (ROL-8).
 */
export function carriesPlan(
  apps: readonly GenericObject[],
  read: PlanRead | undefined,
  rollouts: readonly RolloutObject[],
): boolean {
  if (read?.state !== 'read') return true;
  const rewritten = new Set(missingReleases(apps, read.plan.releases, rollouts).recreate.map((r) => r.name));
  // Only whether anything changes matters here, so every change may be judged alike.
  const assessed = assess(inventoryOf(apps), read.plan.releases, () => ({ verdict: 'unknown', why: '' }));
  return assessed.ok && assessed.steps.every((s) => s.action === 'Install' && rewritten.has(s.release));
}

/** Releases the last rollout to the target started and never finished: a new rollout gates them again. */
function unfinishedOf(last: RolloutObject | undefined): Set<string> {
  const steps = last?.status?.outcome === 'Succeeded' ? [] : (last?.status?.steps ?? []);
  return new Set(steps.filter((s) => s.startedAt !== undefined && s.state !== 'Succeeded').map((s) => s.release));
}

/**
 * After a rollout that failed, expired or was revoked part way, the Applications carry its target,
 * not the active plan: a rollout back moves from there.
 */
function rollbackFrom(rollouts: readonly RolloutObject[], active: string): string {
  const last = rollouts.at(-1);
  return last && last.spec.toPlan !== active ? last.spec.toPlan : active;
}

/** A new rollout to the target, unless the Applications already carry it or resolution has not settled. */
function start(look: RolloutLook, target: string): RolloutState {
  const back = target === look.activePlan;
  if (back && carriesPlan(look.apps, look.target, look.rollouts)) return { kind: 'Released', target };
  if (!look.resolved) return { kind: 'AwaitingResolution', target };
  const from = back ? rollbackFrom(look.rollouts, target) : look.activePlan;
  const last = look.rollouts.filter((r) => r.spec.toPlan === target).at(-1);
  return { kind: 'Due', target, ...(from ? { from } : {}), unfinished: unfinishedOf(last) };
}

function upgrade(look: RolloutLook, now: Date): Decided {
  const target = look.targetPlan;
  if (!target) return { state: { kind: 'NoTarget' }, supersede: [] };
  if (look.newer.length > 0) return { state: { kind: 'NewerSchema' }, supersede: [] };
  const stale = look.rollouts
    .filter((r) => live(r) && r.spec.toPlan !== target)
    .map((rollout) => ({ rollout, why: `the target plan is now ${target}` }));
  const current = look.rollouts.find((r) => live(r) && r.spec.toPlan === target);
  if (current?.spec.retry)
    return { state: start(look, target), supersede: [...stale, { rollout: current, why: retryWhy(current) }] };
  if (current?.spec.revocation) return { state: { kind: 'Revoked', rollout: current }, supersede: stale };
  if (current)
    return {
      state: { kind: 'InFlight', rollout: current, approval: approvalOf(current, look, now) },
      supersede: stale,
    };
  const last = look.rollouts.filter((r) => r.spec.toPlan === target).at(-1);
  const badly = endedBadly(last);
  if (last && badly) return { state: { kind: 'Ended', rollout: last, outcome: badly }, supersede: stale };
  return { state: start(look, target), supersede: stale };
}

/** The one decision a look makes: its state, and the rollouts that end before its action. */
export function determineRolloutState(look: RolloutLook, now: Date): Decided {
  if (look.runtime.metadata.deletionTimestamp) return deletion(look, now);
  if (look.foreign.size > 0 || adopting(look.rollouts)) return adoption(look, now);
  return upgrade(look, now);
}

/**
 * An approved adoption still open: a crash after its last mark moved leaves nothing foreign, yet
 * the adoption must end Succeeded, not be taken for a stale rollout and superseded.
 */
function adopting(rollouts: readonly RolloutObject[]): boolean {
  return rollouts.some(
    (r) =>
      r.spec.type === 'Adopt' &&
      live(r) &&
      !r.spec.retry &&
      !r.spec.revocation &&
      r.status?.approval?.state === 'Accepted',
  );
}

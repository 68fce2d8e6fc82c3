// The rollout step: keeps the runtime moving from its active plan to its target plan through
// RuntimeRollouts. It creates a rollout for a new target (or reports why there is none),
// supersedes rollouts to a target that is no longer wanted, acts on a person's revocation or
// retry, follows the approval and the deadline of the one in progress, executes an approved one
// release by release, rolls back to the active plan when it is the target again, and owns the
// runtime's Released and EngineAvailable conditions and status.activePlan. Argo CD's availability
// is judged on every look, before anything could be written to it (ENG-1), and the emergency stop
// (spec.suspendEngine, ENG-2) is applied then too: while it holds, Argo CD counts as unavailable.
// A runtime being deleted has its deletionPolicy carried out (deletion.ts); Applications of
// another runtime stall it until it adopts them (adoption.ts).
import { ANNOTATION, CONDITION } from '../../api/constants.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import { listManagedApplications, inventoryDigest } from '../../rollouts/inventory.ts';
import { foreignOf, foreignReport } from './adoption.ts';
import { type RolloutObject, listRolloutsRead, rolloutConditions, rolloutState, writeRolloutStatus } from '../../rollouts/objects.ts';
import { newerMessage, newerObjects } from '../../rollouts/schemaVersions.ts';
import type { StepContext, StepReport, StepRunner } from '../types.ts';
import { createRollout } from './create.ts';
import { follow } from './follow.ts';
import { readConfiguration } from '../../configuration/read.ts';
import { type Engine, engineState } from '../../rollouts/engine.ts';
import type { DesiredCondition } from '../../status/conditions.ts';
import { moveOf, noteRollout, released as releasedCondition } from './report.ts';
import { retryRequested, revoke, supersedeForRetry } from './requests.ts';
import { carriesPlan, rollbackFrom } from './rollback.ts';
import { applySuspension } from './suspend.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { ensureCleanup, holdsCleanup } from '../../rollouts/cleanupFinalizer.ts';
import { type DeletionLook, onDeletion } from './deletion.ts';

function statusPlan(ctx: StepContext, key: 'activePlan' | 'targetPlan'): string | undefined {
  const value = (ctx.runtime.status as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

async function supersede(ctx: StepContext, r: RolloutObject, target: string): Promise<void> {
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) is superseded: the target plan is now ${target}`;
  await writeRolloutStatus(ctx.kube, r, { ...r.status, conditions: rolloutConditions(r, rolloutState('stalled', 'Superseded', message), ctx.now()), outcome: 'Superseded' }, ctx.log);
  await noteRollout(ctx, r, { type: 'Normal', reason: EVENT_REASON.rolloutSuperseded, message });
}

/** A rollout to this target that ended without success keeps the runtime stalled until the target changes. */
function endedReport(r: RolloutObject): StepReport | undefined {
  const outcome = r.status?.outcome;
  if (outcome !== 'Expired' && outcome !== 'Failed' && outcome !== 'Revoked') return undefined;
  const reason = outcome === 'Expired' ? 'RolloutExpired' : outcome === 'Failed' ? 'RolloutFailed' : 'RolloutRevoked';
  const c = r.status?.conditions?.find((x) => x.type === CONDITION.ready);
  return releasedCondition('False', reason, c?.message ?? `rollout ${r.metadata.name} ended ${outcome}`);
}

function resolvedTrue(ctx: StepContext): boolean {
  return ctx.runtime.status?.conditions?.some((c) => c.type === CONDITION.resolved && c.status === 'True') ?? false;
}

interface Facts {
  readonly rollouts: readonly RolloutObject[];
  readonly apps: readonly GenericObject[];
  readonly target: string;
  readonly engine: Engine;
}

/** The unfinished rollout to the target: revoked, retried (undefined: a new one is due) or followed. */
async function settleLive(ctx: StepContext, r: RolloutObject, facts: Facts): Promise<StepReport | undefined> {
  if (r.spec.retry) {
    await supersedeForRetry(ctx, r);
    return undefined;
  }
  if (r.spec.revocation) return revoke(ctx, r);
  return follow(ctx, r, { inventory: inventoryDigest(facts.apps), apps: facts.apps, engine: facts.engine });
}

/** The last rollout to the target ended without success and nobody asked to retry it. */
function endedOf(facts: Facts): StepReport | undefined {
  const last = facts.rollouts.filter((r) => r.spec.toPlan === facts.target).at(-1);
  return last && !retryRequested(last) ? endedReport(last) : undefined;
}

/** Releases the last rollout to the target started and never finished: a new rollout gates them again. */
function unfinishedOf(facts: Facts): Set<string> {
  const last = facts.rollouts.filter((r) => r.spec.toPlan === facts.target).at(-1);
  const steps = last?.status?.outcome === 'Succeeded' ? [] : (last?.status?.steps ?? []);
  return new Set(steps.filter((s) => s.startedAt !== undefined && s.state !== 'Succeeded').map((s) => s.release));
}

/**
 * The active plan's message: what its last successful rollout said, so the message a success
 * wrote stays put on later looks instead of changing to a shorter one.
 */
function activeMessage(target: string, rollouts: readonly RolloutObject[]): string {
  const won = rollouts.filter((r) => r.spec.toPlan === target && r.status?.outcome === 'Succeeded').at(-1);
  const said = won?.status?.conditions?.find((c) => c.type === CONDITION.ready)?.message;
  return said ? `plan ${target} is active: ${said}` : `plan ${target} is active`;
}

async function start(ctx: StepContext, facts: Facts): Promise<StepReport> {
  const { target, apps } = facts;
  const active = statusPlan(ctx, 'activePlan');
  const back = target === active;
  if (back && (await carriesPlan(ctx, apps, target, facts.rollouts))) return releasedCondition('True', 'Released', activeMessage(target, facts.rollouts));
  if (!resolvedTrue(ctx)) return releasedCondition('False', 'AwaitingPlan', `no rollout to ${target} starts while resolution has not settled (Resolved is not True)`);
  const from = back ? rollbackFrom(facts.rollouts, target) : active;
  const created = await createRollout(ctx, apps, { active: from, target, unfinished: unfinishedOf(facts) });
  if (created.report) return created.report;
  if (!created.rollout) throw new Error('a rollout was neither created nor explained');
  return follow(ctx, created.rollout, { inventory: created.inventory, apps, engine: facts.engine });
}

/** What one look reads before it decides anything, read together. */
interface Look extends DeletionLook {
  /** Managed Applications other runtimes wrote, by the runtime UID they record. */
  readonly foreign: ReadonlyMap<string, GenericObject[]>;
  /** Rollouts a newer control plane wrote (PLAN-2): while any exists, nothing is decided or written. */
  readonly newer: readonly string[];
}

async function decide(ctx: StepContext, target: string, look: Look): Promise<StepReport> {
  const { rollouts, apps, engine } = look;
  const live = rollouts.filter((r) => !r.status?.outcome);
  for (const r of live.filter((x) => x.spec.toPlan !== target)) await supersede(ctx, r, target);
  const facts: Facts = { rollouts, apps, target, engine };
  const current = live.find((r) => r.spec.toPlan === target);
  const settled = current ? await settleLive(ctx, current, facts) : endedOf(facts);
  return settled ?? start(ctx, facts);
}

/** While Argo CD is up, it is looked at again after this many engine rechecks (5 minutes by default). */
const IDLE_LOOKS = 10;

function engineCondition(engine: Engine): DesiredCondition {
  return engine.available
    ? { type: CONDITION.engineAvailable, status: 'True', reason: 'EngineReady', message: engine.message }
    : { type: CONDITION.engineAvailable, status: 'False', reason: engine.suspension ?? (engine.stale ? 'RegistryCredentialsStale' : 'EngineUnavailable'), message: engine.message };
}

async function released(ctx: StepContext, look: Look): Promise<StepReport> {
  const foreign = foreignReport(ctx, look.foreign, look);
  if (foreign) return foreign;
  const target = statusPlan(ctx, 'targetPlan');
  if (!target) return releasedCondition('False', 'AwaitingPlan', 'no target plan yet: resolution names one once it has resolved the runtime');
  if (look.newer.length > 0) return releasedCondition('False', 'PlanUnreadable', newerMessage(look.newer));
  return decide(ctx, target, look);
}

/** The configuration, the runtime's rollouts and its Applications in one round trip; then Argo CD's state. */
async function lookAround(ctx: StepContext): Promise<Look> {
  const uid = ctx.runtime.metadata.uid;
  const [configuration, read, managed] = await Promise.all([readConfiguration(ctx.kube), listRolloutsRead(ctx.kube, uid), listManagedApplications(ctx.kube)]);
  const listed = managed?.filter((a) => a.metadata.annotations?.[ANNOTATION.runtimeUID] === uid);
  const state = await engineState(ctx.kube, configuration, { now: ctx.now(), staleWithinMs: ctx.timings.tokenStaleWithinMs, served: managed !== undefined });
  const engine = await applySuspension(ctx, listed, state);
  const served = managed !== undefined;
  return { engine, rollouts: read.rollouts, apps: listed ?? [], served, foreign: foreignOf(managed ?? [], uid), newer: newerObjects(read.listed, []) };
}

/** A deletion waits while a newer control plane's rollouts are there: this one may not act on them (PLAN-2). */
function deleting(ctx: StepContext, look: Look): Promise<StepReport> {
  if (look.newer.length > 0 && holdsCleanup(ctx.runtime)) return Promise.resolve(releasedCondition('False', 'PlanUnreadable', `the deletion waits: ${newerMessage(look.newer)}`));
  return onDeletion(ctx, look);
}

/** FIN-1: the cleanup finalizer goes on before this step creates a rollout or writes an Application. */
async function withCleanup(ctx: StepContext): Promise<StepContext> {
  const written = await ensureCleanup(ctx.kube, ctx.runtime);
  return written ? { ...ctx, runtime: written } : ctx;
}

export const runRollout: StepRunner = async (given) => {
  const ctx = await withCleanup(given);
  const look = await lookAround(ctx);
  const { engine } = look;
  const report = ctx.runtime.metadata.deletionTimestamp ? await deleting(ctx, look) : await released(ctx, look);
  if (!report.conditions) return report;
  // Nothing wakes the step when Argo CD goes away or returns but time: soon while it is away,
  // now and then while it is up.
  const idle = engine.available ? IDLE_LOOKS * ctx.timings.engineRecheckMs : ctx.timings.engineRecheckMs;
  const recheck = Math.min(report.recheckAfterMs ?? Number.POSITIVE_INFINITY, idle);
  const runtime = ctx.runtime === given.runtime ? {} : { runtime: ctx.runtime };
  return { ...report, conditions: [engineCondition(engine), ...report.conditions], recheckAfterMs: recheck, ...runtime };
};

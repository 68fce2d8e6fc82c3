// The rollout step: keeps the runtime moving from its active plan to its target plan through
// RuntimeRollouts, and owns the runtime's Released and EngineAvailable conditions and
// status.activePlan. Each look runs in the same order:
//   1. the cleanup finalizer goes on (FIN-1), before anything could be created or written;
//   2. observe (look.ts) reads everything the decision needs, once;
//   3. the emergency stop (emergencyStop.ts, ENG-2) is applied, whatever comes next;
//   4. determineRolloutState (state.ts) names the state, purely; rollouts whose target is gone
//      or whose retry was asked for end first;
//   5. actionFor (actions.ts) picks one action, and one file of actions/ carries it out.
// The RuntimeRollouts themselves are written only by record.ts.
import { CONDITION } from '../../api/constants.ts';
import { ensureCleanup } from '../../rollout/io/cleanupFinalizer.ts';
import type { Engine } from '../../rollout/io/engine.ts';
import type { RolloutObject } from '../../rollout/rules/rolloutObject.ts';
import type { DesiredCondition } from '../../status/conditions.ts';
import type { StepContext, StepReport, StepRunner } from '../../look/contract.ts';
import { type Action, type Purpose, actionFor, followAction } from '../../rollout/rules/actionFor.ts';
import { awaitApproval } from '../../rollout/actions/awaitApproval.ts';
import { dropCleanup } from '../../rollout/actions/cleanup.ts';
import { createAdoption } from '../../rollout/actions/createAdoption.ts';
import { createRemoval } from '../../rollout/actions/createRemoval.ts';
import { createUpgrade } from '../../rollout/actions/createUpgrade.ts';
import { execute } from '../../rollout/actions/execute.ts';
import { expire } from '../../rollout/actions/expire.ts';
import { orphanEverything, waitToOrphan } from '../../rollout/actions/orphan.ts';
import { refuseApproval } from '../../rollout/actions/refuseApproval.ts';
import { retireRollouts } from '../../rollout/io/retention.ts';
import { reportOf } from '../../rollout/actions/reportState.ts';
import { revoke } from '../../rollout/actions/revoke.ts';
import { applyEmergencyStop } from '../../rollout/io/emergencyStop.ts';
import { type RolloutLook, observe } from '../../rollout/io/look.ts';
import { supersede } from '../../rollout/io/record.ts';
import { type RolloutReport, snappedLook } from '../../rollout/rules/released.ts';
import { approvalOf, determineRolloutState } from '../../rollout/rules/state.ts';

/** While Argo CD is up, it is looked at again after this many engine rechecks (5 minutes by default). */
const IDLE_LOOKS = 10;

function engineCondition(engine: Engine): DesiredCondition {
  return engine.available
    ? { type: CONDITION.engineAvailable, status: 'True', reason: 'EngineReady', message: engine.message }
    : {
        type: CONDITION.engineAvailable,
        status: 'False',
        reason: engine.suspension ?? (engine.stale ? 'RegistryCredentialsStale' : 'EngineUnavailable'),
        message: engine.message,
      };
}

/** A rollout created in this look is followed at once: assessed safe, it starts; otherwise it asks for approval. */
async function follow(
  ctx: StepContext,
  look: RolloutLook,
  created: RolloutReport | RolloutObject,
  purpose: Purpose,
): Promise<RolloutReport> {
  if (!('spec' in created)) return created;
  await retireRollouts(ctx, [...look.records, created], look.configuration.rollouts.keep);
  // Judged against the Applications it was made from: the same look's.
  const approval = approvalOf(created, { ...look, inventory: created.spec.inventory ?? look.inventory }, ctx.now());
  return act(ctx, look, followAction(created, approval, purpose));
}

async function followed(
  ctx: StepContext,
  look: RolloutLook,
  action: Extract<Action, { rollout: RolloutObject }>,
): Promise<RolloutReport> {
  const { rollout: r } = action;
  switch (action.name) {
    case 'execute':
      return execute(ctx, look, r, action.accepted);
    case 'expire':
      return expire(ctx, r);
    case 'refuseApproval':
      return refuseApproval(ctx, r, action.judgement);
    case 'awaitApproval':
      return awaitApproval(ctx, r);
    case 'revoke':
      return revoke(ctx, r);
  }
}

async function act(ctx: StepContext, look: RolloutLook, action: Action): Promise<RolloutReport> {
  switch (action.name) {
    case 'report':
      return reportOf(ctx, look, action.state);
    case 'leave':
      return {};
    case 'waitToOrphan':
      return waitToOrphan(ctx);
    case 'orphan':
      return orphanEverything(ctx, look, action);
    case 'releaseCleanup':
      return dropCleanup(ctx);
    case 'createUpgrade':
      return follow(ctx, look, await createUpgrade(ctx, look, action.state), 'upgrade');
    case 'createAdoption':
      return follow(ctx, look, await createAdoption(ctx, look, action.state), 'adoption');
    case 'createRemoval':
      return follow(ctx, look, await createRemoval(ctx, look, action.state), 'removal');
    default: {
      // A rollout's own log lines, and the step's after it, name it (OBS-1).
      const rollout = action.rollout.metadata.name;
      const named = { ...ctx, log: ctx.log.child({ rollout }) };
      const report = await followed(named, look, action);
      return { ...report, log: { rollout, ...report.log } };
    }
  }
}

/** FIN-1: the cleanup finalizer goes on before this step creates a rollout or writes an Application. */
async function withCleanup(ctx: StepContext): Promise<StepContext> {
  const written = await ensureCleanup(ctx.kube, ctx.runtime);
  return written ? { ...ctx, runtime: written } : ctx;
}

export const runRollout: StepRunner = async (given) => {
  const ctx = await withCleanup(given);
  const seen = await observe(ctx);
  const engine = await applyEmergencyStop(ctx, seen);
  const look: RolloutLook = { ...seen, engine };
  const { state, supersede: ending } = determineRolloutState(look, ctx.now());
  for (const { rollout, why } of ending) await supersede(ctx, rollout, why);
  const report = await act(ctx, look, actionFor(state));
  if (!report.conditions) return report;
  // Nothing wakes the step when Argo CD goes away or returns but time: soon while it is away,
  // now and then while it is up.
  const idle = engine.available ? IDLE_LOOKS * ctx.timings.engineRecheckMs : ctx.timings.engineRecheckMs;
  const runtime = ctx.runtime === given.runtime ? {} : { runtime: ctx.runtime };
  const { recheckKey, ...rest } = report;
  const out: StepReport = {
    ...rest,
    conditions: [engineCondition(engine), ...report.conditions],
    ...nextLook(report, recheckKey, idle, ctx.now()),
    ...runtime,
  };
  return out;
};

/**
 * When to look again. Every look asks for one, so a look the step asks for only because time
 * passes is keyed by the end of the idle period after it (so between one and two idle periods
 * away): the looks that many messages ask for in one period are one timer, not one chain of
 * looks per message that ever arrived.
 * A key names one instant; a sooner look under the same key would be taken for that timer and dropped.
 */
export function nextLook(
  report: Pick<StepReport, 'recheckAfterMs'>,
  recheckKey: string | undefined,
  idleMs: number,
  now: Date,
): Pick<StepReport, 'recheckAfterMs' | 'recheckKey'> {
  const asked = report.recheckAfterMs ?? Number.POSITIVE_INFINITY;
  const idle = snappedLook(now, idleMs, idleMs, 'idle');
  // Never later than the step asked: a window opening, say, is looked at when it opens.
  if (asked < idle.recheckAfterMs)
    return { recheckAfterMs: asked, ...(recheckKey === undefined ? {} : { recheckKey }) };
  return idle;
}

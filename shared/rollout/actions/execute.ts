// An approved rollout, one look at a time. The look walks the releases in order: each release's
// move is decided by releaseMove (rules/releaseMove.ts) from what the look read, plus what that
// move asks to be read; a release done lets the next move in the same look; the first that is not
// done ends the look with one status write and at most one write to Argo CD, whose result the next
// look reads. Nothing is written while the runtime is paused or Argo CD is unavailable (ENG-1); a
// written Application is never written again mid-step, so a hand edit is reported, not undone.
import type { StepContext } from '../../look/contract.ts';
import { concerning } from '../../look/contract.ts';
import { planToApplications } from '../../plans/applications.ts';
import type { Plan } from '../../plans/plan.ts';
import type { Judgement } from '../rules/approval.ts';
import { inventoryChanges } from '../rules/drift.ts';
import { type StepState, nextStep, stepStates } from '../rules/progress.ts';
import { type RolloutReport, planMissing } from '../rules/released.ts';
import { type RolloutObject, approvedCondition } from '../rules/rolloutObject.ts';
import type { RolloutLook } from '../io/look.ts';
import { decideRelease, factReader } from '../io/releaseFacts.ts';
import { validateThenSucceed, validationGate } from './deploymentValidation.ts';
import { type Approved, type Running, drifted, ended, fail, hold, succeed } from './lookEnds.ts';

import { startRelease } from './releaseStart.ts';

const PAUSED =
  'the runtime is paused (spec.paused): the rollout moves on once it is unpaused, and a step in flight longer ' +
  'than actionTimeout may then fail';

type Planned = Pick<Running, 'intended' | 'releases'> & { readonly plan?: Plan };

/** The target plan's Applications and releases; a removal or an adoption writes none, so it needs no plan. */
function plannedOf(look: RolloutLook, r: RolloutObject): Planned | RolloutReport {
  if (r.spec.type === 'Remove' || r.spec.type === 'Adopt') return { intended: new Map(), releases: new Map() };
  // Only the rollout to the target is ever executed, and the look read that plan.
  const read = r.spec.toPlan === look.targetPlan && look.target ? look.target : { state: 'missing' as const };
  if (read.state !== 'read') return planMissing(r.spec.toPlan, read);
  const { argocd } = look.configuration;
  const apps = planToApplications(
    read.plan.releases,
    { runtimeUID: look.runtime.metadata.uid, planDigest: read.plan.digest },
    {
      project: argocd.project,
      destination: argocd.destination.name ? { name: argocd.destination.name } : { server: argocd.destination.server },
    },
  );
  return {
    intended: new Map(apps.map((a) => [a.metadata.name, a])),
    releases: new Map(read.plan.releases.map((x) => [x.name, x])),
    plan: read.plan,
  };
}

/** How the rollout came to run: an approval accepted in this look or before, or every step assessed safe. */
function approvedOf(accepted: Extract<Judgement, { state: 'Accepted' }> | undefined): Approved {
  if (!accepted)
    return {
      condition: approvedCondition('True', 'AssessedSafe', 'every step was assessed safe, so no approval is needed'),
    };
  const approval = {
    state: 'Accepted' as const,
    approvedBy: accepted.approvedBy,
    approvedAt: accepted.approvedAt,
    reason: 'Approved',
    message: accepted.message,
  };
  return { condition: approvedCondition('True', 'Approved', accepted.message), approval };
}

/** Moves the rollout on as far as Argo CD's reports allow in one look. */
export async function execute(
  ctx: StepContext,
  look: RolloutLook,
  r: RolloutObject,
  accepted?: Extract<Judgement, { state: 'Accepted' }>,
): Promise<RolloutReport> {
  const { engine, settings } = look;
  const base: Running = {
    ctx,
    look,
    r,
    approved: approvedOf(accepted),
    actionTimeoutMs: settings.actionTimeoutMs,
    intended: new Map(),
    releases: new Map(),
  };
  const states = stepStates(r);
  if (settings.paused) return hold(base, states, PAUSED);
  // A suspended engine (spec.suspendEngine) shows as Argo CD unavailable, which holds as well.
  if (!engine.available)
    return hold(base, states, `nothing is written to Argo CD while it is unavailable: ${engine.message}`);
  const planned = plannedOf(look, r);
  if (!('intended' in planned)) return planned;
  const { plan } = planned;
  const known = plan ? { planDigest: plan.digest } : {};
  const run: Running = { ...base, ...planned, ctx: { ...ctx, log: ctx.log.child(known) } };
  return concerning(await moveOn(run, states, plan), known);
}

async function moveOn(run: Running, initial: readonly StepState[], plan: Plan | undefined): Promise<RolloutReport> {
  const { r, look } = run;
  // ROL-2: nothing is written while the Applications differ from what was approved; the check repeats every look.
  const changes = plan
    ? inventoryChanges({
        recorded: r.spec.applications,
        live: look.apps,
        steps: r.spec.steps,
        states: initial,
        intended: run.intended,
        targetDigest: plan.digest,
      })
    : [];
  if (changes.length > 0) return drifted(run, initial, changes);
  const gated = plan ? await validationGate(run, initial, plan) : undefined;
  if (gated) return gated;
  const read = factReader(run.ctx, look);
  let states = initial;
  for (let i = nextStep(states); i !== undefined; i = nextStep(states)) {
    const move = await decideRelease(run, states, i, read);
    states = states.map((s, k) => (k === i ? move.state : s));
    switch (move.kind) {
      case 'done':
        continue;
      case 'act':
        return startRelease(run, states, i, move);
      case 'end':
        return ended(run, states, i, move.end);
      case 'fail':
        return fail(run, states, i, move.why);
    }
  }
  // A removal or an adoption changes no release, so there is nothing to validate.
  return plan ? validateThenSucceed(run, states, plan) : succeed(run, states);
}

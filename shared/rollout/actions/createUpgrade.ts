// A new rollout to the target plan: every release assessed against what the owned Applications
// carry now, and the RuntimeRollout created; or the reason there is none (a blocked transition, a
// plan that cannot be read or validated, nothing to change).
import type { Plan } from '../../plans/plan.ts';
import { type Blocked, assess, dependencyCycle } from '../rules/assess.ts';
import { inventoryEntries } from '../rules/drift.ts';
import { inventoryOf } from '../rules/inventory.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { type RolloutLook, readPlan } from '../io/look.ts';
import { createRollout } from '../io/record.ts';
import { type RolloutReport, planMissing, released, stepSummary } from '../rules/released.ts';
import type { RolloutState } from '../rules/stateKinds.ts';
import { assessorFor } from './assessment.ts';
import { planWithoutRecipe, transitionBlocked } from '../../status/reasonMessages.noRollout.ts';

type Due = Extract<RolloutState, { kind: 'Due' }>;

/** PLAN-6: a rebuilt plan has no recipe, so a rollout to it cannot be validated while validation is Required. */
function withoutRecipe(ctx: StepContext, target: string): RolloutReport {
  const message = planWithoutRecipe(target);
  ctx.log.info('no rollout to a plan without a recipe while validation is required', { plan: target });
  return released('False', 'PlanWithoutRecipe', message);
}

function blockedReport(target: string, blocked: readonly Blocked[]): RolloutReport {
  return released('False', 'TransitionBlocked', transitionBlocked(target, blocked));
}

/** Why no rollout to this plan can be made whatever the Applications carry, if anything. */
function planProblem(ctx: StepContext, look: RolloutLook, plan: Plan, target: string): RolloutReport | undefined {
  if (plan.rebuilt && look.settings.validationRequired) return withoutRecipe(ctx, target);
  const cycle = dependencyCycle(plan.releases);
  if (cycle)
    return blockedReport(target, [
      {
        release: cycle.split(' → ')[0] ?? '',
        why: `the releases depend on each other in a cycle, ${cycle}, so no order can install them`,
      },
    ]);
  return undefined;
}

/** The plan upgrade-check compares from: the one the move starts at, which only this action needs. */
async function fromPlan(ctx: StepContext, look: RolloutLook, from: string | undefined): Promise<Plan | undefined> {
  if (!from) return undefined;
  const read = from === look.targetPlan ? look.target : await readPlan(ctx.kube, from);
  return read?.state === 'read' ? read.plan : undefined;
}

/** Creates the rollout from the state's `from` to its target, or says why there is none. */
export async function createUpgrade(
  ctx: StepContext,
  look: RolloutLook,
  due: Due,
): Promise<RolloutReport | RolloutObject> {
  const { target } = due;
  const read = look.target ?? { state: 'missing' as const };
  if (read.state !== 'read') return planMissing(target, read);
  const problem = planProblem(ctx, look, read.plan, target);
  if (problem) return problem;
  const assessor = await assessorFor(ctx, look, await fromPlan(ctx, look, due.from), read.plan);
  if (!assessor.ok) return assessor.report;
  const assessed = assess(inventoryOf(look.apps), read.plan.releases, assessor.assessor, due.unfinished);
  if (!assessed.ok) return blockedReport(target, assessed.blocked);
  // A target never validated still needs its validation (deploymentValidation.ts): a rollout with
  // no step runs only that.
  if (assessed.steps.length === 0 && !(look.settings.validationRequired && due.from !== target)) {
    return released(
      'True',
      'Released',
      `plan ${target} is active: the owned Applications already carry every release of it`,
      { fields: { activePlan: target } },
    );
  }
  const spec = {
    type: 'Upgrade' as const,
    ...(due.from ? { fromPlan: due.from } : {}),
    toPlan: target,
    steps: assessed.steps,
    inventory: look.inventory,
    applications: inventoryEntries(look.apps),
  };
  return createRollout(
    ctx,
    spec,
    look.settings.approvalMs,
    (created) => `rollout from ${due.from ?? 'nothing'} to ${target}: ${stepSummary(created)}`,
  );
}

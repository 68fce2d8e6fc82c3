// A new rollout to the target plan: read the plan, assess every release against what the owned
// Applications carry now, and create the RuntimeRollout, or report why there is none (a blocked
// transition, a plan that cannot be read, nothing to change).
import { ClusterRuntimeSpecSchema } from '../../api/clusterRuntime.ts';
import { validationRequired } from '../../validation/installed.ts';
import { NAMESPACES } from '../../api/constants.ts';
import type { RuntimeRolloutSpec } from '../../api/runtimeRollout.ts';
import { parseDuration } from '../../durations.ts';
import { EVENT_REASON } from '../../events/recorder.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { Plan } from '../../plans/plan.ts';
import { readPlanConfigMap } from '../../plans/store.ts';
import { type Blocked, assess, dependencyCycle } from '../../rollouts/assess.ts';
import { inventoryEntries } from '../../rollouts/drift.ts';
import { inventoryDigest, inventoryOf } from '../../rollouts/inventory.ts';
import { parseRollout, type RolloutObject, rolloutManifest, rolloutName } from '../../rollouts/objects.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { StepContext, StepReport } from '../types.ts';
import { type Assessed, assessorFor } from './assessment.ts';
import { noteRollout, released, stepSummary } from './report.ts';

/** Used when the runtime's spec cannot be read here (resolution reports why): the API's default. */
const DEFAULT_APPROVAL_MS = 72 * 3600 * 1000;
const PIN_HINT = 'set spec.selection to mode: Pinned with the active plan, or revert the change to the runtime that led to this plan';

/** PLAN-6: a rebuilt plan has no recipe, so a rollout to it cannot be validated while validation is Required. */
function withoutRecipe(ctx: StepContext, target: string): StepReport {
  const message =
    `the target plan ${target} was rebuilt from the Argo CD Applications, so it has no recipe, and spec.validation.deployment is Required: deployment validation cannot run, and nothing was written. ` +
    'Change the inputs so that resolution reproduces the plan (it then writes the resolved plan, with its recipe, in its place); pin another plan (spec.selection); ' +
    'or set spec.validation.deployment: Disabled for this rollout, which leaves it without validation evidence';
  ctx.log.info('no rollout to a plan without a recipe while validation is required', { plan: target });
  return released('False', 'PlanWithoutRecipe', message);
}

export function approvalMs(ctx: StepContext): number {
  const spec = ClusterRuntimeSpecSchema.safeParse(ctx.runtime.spec);
  return (spec.success ? parseDuration(spec.data.approvalTimeout) : undefined) ?? DEFAULT_APPROVAL_MS;
}

type PlanRead = { ok: true; plan: Plan } | { ok: false; report: StepReport };

export async function readTarget(ctx: StepContext, target: string): Promise<PlanRead> {
  const cm = await ctx.kube.get(KIND.configMap, target, NAMESPACES.system);
  if (!cm) return { ok: false, report: released('False', 'PlanMissing', `the target plan ${target} is missing from ${NAMESPACES.system}, so no rollout can be made; resolution writes it again, or pin a plan that exists`) };
  const read = readPlanConfigMap(cm);
  if (!read.ok) return { ok: false, report: released('False', 'PlanMissing', `${read.problem}; no rollout is made from a plan that does not read back. Delete the ConfigMap to have it resolved again`) };
  return { ok: true, plan: read.plan };
}

function blockedReport(target: string, blocked: readonly Blocked[]): StepReport {
  const list = blocked.map((b) => `${b.release}: ${b.why}`).join('; ');
  const message = `the move to plan ${target} needs a migration the control plane does not perform (${list}). No rollout is created and nothing is written to Argo CD. Return to a plan without that change: ${PIN_HINT}`;
  return released('False', 'TransitionBlocked', message);
}

/** The active plan's recipe is what upgrade-check compares from; without it the move is `unknown`. */
async function assessorOf(ctx: StepContext, active: string | undefined, target: Plan): Promise<Assessed> {
  const from = active ? await readTarget(ctx, active) : undefined;
  return assessorFor(ctx, from?.ok ? from.plan : undefined, target);
}

export interface Created {
  readonly report?: StepReport;
  readonly rollout?: RolloutObject;
  readonly inventory: string;
}

/** Why no rollout to this plan can be made whatever the Applications carry, if anything. */
function planProblem(ctx: StepContext, plan: Plan, target: string): StepReport | undefined {
  if (plan.rebuilt && validationRequired(ctx.runtime)) return withoutRecipe(ctx, target);
  const cycle = dependencyCycle(plan.releases);
  if (cycle) return blockedReport(target, [{ release: cycle.split(' → ')[0] ?? '', why: `the releases depend on each other in a cycle, ${cycle}, so no order can install them` }]);
  return undefined;
}

/** Creates the rollout from `active` to `target`, or says why there is none. */
export async function createRollout(ctx: StepContext, apps: readonly GenericObject[], plans: { readonly active?: string | undefined; readonly target: string; readonly unfinished?: ReadonlySet<string> }): Promise<Created> {
  const inventory = inventoryDigest(apps);
  const read = await readTarget(ctx, plans.target);
  if (!read.ok) return { report: read.report, inventory };
  const problem = planProblem(ctx, read.plan, plans.target);
  if (problem) return { report: problem, inventory };
  const assessor = await assessorOf(ctx, plans.active, read.plan);
  if (!assessor.ok) return { report: assessor.report, inventory };
  const assessed = assess(inventoryOf(apps), read.plan.releases, assessor.assessor, plans.unfinished);
  if (!assessed.ok) return { report: blockedReport(plans.target, assessed.blocked), inventory };
  // A target never validated still needs its validation (validate.ts): a rollout with no step runs only that.
  if (assessed.steps.length === 0 && !(validationRequired(ctx.runtime) && plans.active !== plans.target)) {
    return { report: released('True', 'Released', `plan ${plans.target} is active: the owned Applications already carry every release of it`, { fields: { activePlan: plans.target } }), inventory };
  }
  const now = ctx.now();
  const spec: RuntimeRolloutSpec = {
    runtimeUID: ctx.runtime.metadata.uid,
    type: 'Upgrade',
    ...(plans.active ? { fromPlan: plans.active } : {}),
    toPlan: plans.target,
    steps: assessed.steps,
    inventory,
    applications: inventoryEntries(apps),
    deadline: kubeTime(new Date(now.getTime() + approvalMs(ctx))),
  };
  const created = parseRollout(await ctx.kube.create(KIND.runtimeRollout, rolloutManifest(rolloutName(plans.target, now), spec, ctx.runtime.metadata)));
  if (!created) throw new Error('the API server returned a RuntimeRollout that does not fit its schema');
  await noteRollout(ctx, created, { type: 'Normal', reason: EVENT_REASON.rolloutCreated, message: `rollout from ${plans.active ?? 'nothing'} to ${plans.target}: ${stepSummary(created)}` });
  return { rollout: created, inventory };
}

// The active plan as the drift check reads it, or rebuilds it when its ConfigMap is gone
// (PLAN-4). Plans are named by their digest, and the digest covers only what the Applications
// carry, so Applications that rebuild to the active plan's name are that plan: it is written
// back without anyone's intervention (PlanRebuilt), without a recipe, which no Application holds.
// Applications that rebuild to another digest were edited outside the control plane; then
// nothing is written and the runtime stalls with PlanMissing naming both.
import { NAMESPACES } from '../../api/constants.ts';
import { KubeRequestError } from '../../errors.ts';
import { recordEvent } from '../../events/recorder.ts';
import { type ConfigMapObject, type GenericObject, KIND } from '../../kube/kinds.ts';
import { applicationsDigest } from '../../plans/applications.ts';
import { planName } from '../../plans/digest.ts';
import type { Plan } from '../../plans/plan.ts';
import { planConfigMap, readPlanConfigMap } from '../../plans/store.ts';
import type { RolloutObject } from '../../rollout/rules/rolloutObject.ts';
import type { StepContext, StepReport } from '../../look/contract.ts';
import {
  planMissingActive,
  planMissingRebuiltElsewhere,
  planUnreadableActive,
} from '../../status/reasonMessages.inventory.ts';
import { consistent } from './report.ts';

export const PLAN_REBUILT_EVENT = 'PlanRebuilt';

export type ActivePlan =
  { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly report: StepReport };

function missing(name: string, cause: string): ActivePlan {
  return {
    ok: false,
    report: consistent('False', 'PlanMissing', planMissingActive(name, cause)),
  };
}

/** Writes the rebuilt plan back; one that appeared meanwhile (resolution, another look) is as good. */
async function writeBack(ctx: StepContext, plan: Plan): Promise<void> {
  try {
    await ctx.kube.create(KIND.configMap, planConfigMap(plan));
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 409) return;
    throw err;
  }
  const message =
    `the active plan ${planName(plan.digest)} was missing; rebuilt from the owned Argo CD Applications to the ` +
    `same digest ${plan.digest} and written back (it has no recipe)`;
  await recordEvent(
    { kube: ctx.kube, runtime: ctx.runtime, reporter: 'drift-check', now: ctx.now() },
    { type: 'Normal', reason: PLAN_REBUILT_EVENT, message },
  );
  ctx.log.info('active plan rebuilt from the Applications', { plan: planName(plan.digest) });
}

async function rebuild(ctx: StepContext, name: string, apps: readonly GenericObject[]): Promise<ActivePlan> {
  if (apps.length === 0)
    return missing(name, `no owned Application is left in ${NAMESPACES.argocd} to rebuild it from`);
  const rebuilt = applicationsDigest(apps);
  if (!rebuilt.ok) return missing(name, rebuilt.problems.join('; '));
  const found = planName(rebuilt.digest);
  if (found !== name) {
    const message = planMissingRebuiltElsewhere(name, { plan: found, digest: rebuilt.digest });
    return { ok: false, report: consistent('False', 'PlanMissing', message) };
  }
  const plan: Plan = {
    digest: rebuilt.digest,
    releases: rebuilt.releases,
    runtimeUID: ctx.runtime.metadata.uid,
    rebuilt: true,
  };
  await writeBack(ctx, plan);
  return { ok: true, plan };
}

export interface ActiveLook {
  readonly name: string;
  readonly configMap: ConfigMapObject | undefined;
  readonly apps: readonly GenericObject[];
  readonly live: RolloutObject | undefined;
}

export async function activePlan(ctx: StepContext, look: ActiveLook): Promise<ActivePlan> {
  const { name, configMap, live } = look;
  if (configMap) {
    const read = readPlanConfigMap(configMap);
    if (read.ok) return read;
    return {
      ok: false,
      report: consistent('False', 'PlanUnreadable', planUnreadableActive(read.problem)),
    };
  }
  // Once a rollout is approved the Applications move between two plans; when it ends its target is
  // active and this plan may not matter any more.
  if (live?.spec.approval)
    return {
      ok: false,
      report: consistent(
        'True',
        'InventoryConsistent',
        `the active plan ${name} is missing; rollout ${live.metadata.name} is approved and in progress, ` +
          'so it is rebuilt from the Applications once the rollout has ended, if it is still the active plan',
      ),
    };
  return rebuild(ctx, name, look.apps);
}

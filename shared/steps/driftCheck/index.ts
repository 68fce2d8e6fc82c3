// The drift-check step: between rollouts, compares the owned Argo CD Applications with the
// active and target plans through the canonical release set (docs/drift.md). It owns
// InventoryConsistent. It refuses to act while a newer control plane's rollouts or plans exist
// (PLAN-2), rebuilds a lost active plan from the Applications (PLAN-4), writes a deleted
// Application again from the active plan (ROL-8) unless an unsuccessful rollout had moved it
// (ROL-5), and leaves everything during a rollout to the rollout step. Woken by Application,
// plan, rollout and runtime changes (coalesced by the forwarder) and every drift.checkInterval.
// On a cluster where nothing drifted a look is reads only.
import { NAMESPACES } from '../../api/constants.ts';
import { lookConfiguration } from '../../look/configuration.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { type ConfigMapObject, type GenericObject, KIND } from '../../kube/kinds.ts';
import { listOwnedApplications } from '../../rollout/io/applications.ts';
import { rolloutInProgress } from '../../rollout/rules/missingReleases.ts';
import { listRolloutsRead } from '../../rollout/io/rollouts.ts';
import type { RolloutObject } from '../../rollout/rules/rolloutObject.ts';
import { newerObjects } from '../../rollout/rules/schemaVersions.ts';
import { planUnreadableNewer } from '../../status/reasonMessages.inventory.ts';
import type { StepContext, StepReport, StepRunner } from '../../look/contract.ts';
import { activePlan } from './activePlan.ts';
import { checkInventory } from './recreate.ts';
import { consistent, nextLook } from './report.ts';
import { statusPlan } from '../../status/statusPlans.ts';

interface Look {
  readonly configuration: Configuration;
  readonly rollouts: readonly RolloutObject[];
  readonly listedRollouts: readonly GenericObject[];
  /** Undefined while Argo CD's Application API is not served. */
  readonly apps: readonly GenericObject[] | undefined;
  readonly active: string | undefined;
  readonly activeMap: ConfigMapObject | undefined;
  readonly targetMap: ConfigMapObject | undefined;
}

function planMap(ctx: StepContext, name: string | undefined): Promise<ConfigMapObject | undefined> {
  return name ? ctx.kube.get(KIND.configMap, name, NAMESPACES.system) : Promise.resolve(undefined);
}

/** Everything a look reads, in one round trip. */
async function lookAround(ctx: StepContext): Promise<Look> {
  const uid = ctx.runtime.metadata.uid;
  const active = statusPlan(ctx.runtime, 'activePlan');
  const target = statusPlan(ctx.runtime, 'targetPlan');
  const [configuration, read, apps, activeMap, targetMap] = await Promise.all([
    lookConfiguration(ctx),
    listRolloutsRead(ctx.kube, uid),
    listOwnedApplications(ctx.kube, uid),
    planMap(ctx, active),
    target === active ? Promise.resolve(undefined) : planMap(ctx, target),
  ]);
  return { configuration, rollouts: read.rollouts, listedRollouts: read.listed, apps, active, activeMap, targetMap };
}

async function check(ctx: StepContext, look: Look): Promise<StepReport> {
  const plans = [look.activeMap, look.targetMap].filter((cm) => cm !== undefined);
  const newer = newerObjects(look.listedRollouts, plans);
  if (newer.length > 0) return consistent('False', 'PlanUnreadable', planUnreadableNewer(newer));
  if (!look.active)
    return consistent(
      'True',
      'InventoryConsistent',
      'no active plan yet: nothing is compared until a rollout has made one active',
    );
  if (!look.apps)
    return consistent(
      'True',
      'InventoryConsistent',
      `Argo CD's Application API is not served, so the Applications of the active plan ${look.active} are not ` +
        'compared (EngineAvailable says why)',
    );
  const live = rolloutInProgress(look.rollouts);
  const plan = await activePlan(ctx, { name: look.active, configMap: look.activeMap, apps: look.apps, live });
  if (!plan.ok) return plan.report;
  if (live)
    return consistent(
      'True',
      'InventoryConsistent',
      `rollout ${live.metadata.name} is in progress: it compares the Applications itself`,
    );
  return checkInventory(
    ctx,
    { configuration: look.configuration, apps: look.apps, rollouts: look.rollouts },
    plan.plan,
    look.active,
  );
}

export const runDriftCheck: StepRunner = async (ctx) => {
  if (ctx.runtime.metadata.deletionTimestamp) return {};
  const look = await lookAround(ctx);
  const report = await check(ctx, look);
  const periodic = nextLook(ctx, look.configuration);
  // A sooner look the check asked for (Argo CD away) keeps its own key; otherwise the periodic one.
  return report.recheckAfterMs !== undefined && report.recheckAfterMs < (periodic.recheckAfterMs ?? Infinity)
    ? report
    : { ...report, ...periodic };
};

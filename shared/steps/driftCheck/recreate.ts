// Owned Applications deleted while no rollout is in progress (ROL-8, ROL-5). Without Argo CD's
// resources finalizer their resources keep running; the drift check writes each one again from
// the active plan, exactly as a rollout wrote it and under the rollout's field manager, so the
// next rollout's apply owns every field of it as before. Releases an unsuccessful rollout moved
// are not written (that would roll them back without approval): MovedReleaseMissing.
import { NAMESPACES } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { recordEvent } from '../../events/recorder.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { type ApplicationOptions, planToApplications } from '../../plans/applications.ts';
import { planName } from '../../plans/digest.ts';
import type { Plan } from '../../plans/plan.ts';
import { writeApplication } from '../../rollout/io/applicationWrites.ts';
import { engineState } from '../../rollout/io/engine.ts';
import { type MovedRelease, missingReleases } from '../../rollout/rules/missingReleases.ts';
import type { RolloutObject } from '../../rollout/rules/rolloutObject.ts';
import type { StepContext, StepReport } from '../../look/contract.ts';
import { readWindows, windowNow } from '../../rollout/rules/maintenanceSpec.ts';
import { movedReleaseMissing } from '../../status/reasonMessages.inventory.ts';
import { consistent } from './report.ts';

export const APPLICATION_RECREATED_EVENT = 'ApplicationRecreated';

export interface InventoryLook {
  readonly configuration: Configuration;
  readonly apps: readonly GenericObject[];
  readonly rollouts: readonly RolloutObject[];
}

function optionsOf(configuration: Configuration): ApplicationOptions {
  const { project, destination } = configuration.argocd;
  return { project, destination: destination.name ? { name: destination.name } : { server: destination.server } };
}

function movedReport(plan: string, moved: readonly MovedRelease[]): StepReport {
  return consistent('False', 'MovedReleaseMissing', movedReleaseMissing(plan, moved));
}

async function rewrite(ctx: StepContext, look: InventoryLook, plan: Plan, names: ReadonlySet<string>): Promise<void> {
  const owner = { runtimeUID: ctx.runtime.metadata.uid, planDigest: plan.digest };
  const name = planName(plan.digest);
  for (const app of planToApplications(plan.releases, owner, optionsOf(look.configuration)).filter((a) =>
    names.has(a.metadata.name),
  )) {
    await writeApplication(ctx.kube, app);
    const message =
      `Application ${NAMESPACES.argocd}/${app.metadata.name} was deleted outside a rollout (its resources kept ` +
      `running); written again from the active plan ${name}`;
    await recordEvent(
      { kube: ctx.kube, runtime: ctx.runtime, reporter: 'drift-check', now: ctx.now() },
      { type: 'Normal', reason: APPLICATION_RECREATED_EVENT, message },
    );
    ctx.log.info('Application written again from the active plan', { application: app.metadata.name, plan: name });
  }
}

/** Why the missing Applications are not written now, and when to look at them again. */
interface RewriteHold {
  readonly until: string;
  readonly recheck: Pick<StepReport, 'recheckAfterMs' | 'recheckKey'>;
}

async function rewriteHold(ctx: StepContext, configuration: Configuration): Promise<RewriteHold | undefined> {
  const engine = await engineState(ctx.kube, configuration, {
    now: ctx.now(),
    staleWithinMs: ctx.timings.tokenStaleWithinMs,
    served: true,
  });
  if (!engine.available)
    return {
      until: `once Argo CD can take writes (${engine.message})`,
      recheck: { recheckAfterMs: ctx.timings.engineRecheckMs },
    };
  // WIN-1 holds the rewrite too: it changes the cluster as a rollout step does.
  const window = windowNow(readWindows(ctx.runtime.spec), ctx.now());
  if (window.open) return undefined;
  return {
    until: `in a maintenance window: ${window.why}`,
    recheck: {
      recheckAfterMs: window.recheckAfterMs,
      ...(window.recheckKey ? { recheckKey: window.recheckKey } : {}),
    },
  };
}

function heldReport(plan: string, missing: readonly string[], hold: RewriteHold): StepReport {
  const report = consistent(
    'True',
    'InventoryConsistent',
    `Applications ${missing.join(', ')} of the active plan ${plan} are missing; they are written again ${hold.until}`,
  );
  return { ...report, ...hold.recheck };
}

/** Compares the owned Applications with the active plan and writes back what may be written without approval. */
export async function checkInventory(
  ctx: StepContext,
  look: InventoryLook,
  plan: Plan,
  name: string,
): Promise<StepReport> {
  const { recreate, moved } = missingReleases(look.apps, plan.releases, look.rollouts);
  const missing = recreate.map((r) => r.name);
  if (missing.length > 0) {
    const hold = await rewriteHold(ctx, look.configuration);
    if (hold) return moved.length > 0 ? movedReport(name, moved) : heldReport(name, missing, hold);
    await rewrite(ctx, look, plan, new Set(missing));
  }
  if (moved.length > 0) return movedReport(name, moved);
  const again = missing.length > 0 ? `; written again: ${missing.join(', ')}` : '';
  return consistent(
    'True',
    'InventoryConsistent',
    `the owned Applications carry every release of the active plan ${name}${again}`,
  );
}

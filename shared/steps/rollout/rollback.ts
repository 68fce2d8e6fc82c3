// The active plan as the target again. Normally the owned Applications carry it and the runtime
// is Released; after a rollout that failed, expired or was revoked part way they may not: the
// releases it moved are at its target and the ones it removed are gone. Then a rollout back to the
// active plan is created from what the Applications carry, so it moves those releases back and
// reinstalls the removed ones, and like any rollout it needs approval.
import type { GenericObject } from '../../kube/kinds.ts';
import { assess } from '../../rollouts/assess.ts';
import { inventoryOf } from '../../rollouts/inventory.ts';
import { missingReleases } from '../../rollouts/missingReleases.ts';
import type { RolloutObject } from '../../rollouts/objects.ts';
import type { StepContext } from '../types.ts';
import { readTarget } from './create.ts';

/**
 * Whether the owned Applications carry every release of the plan and nothing else. A plan that
 * cannot be read counts as carried: there is nothing to roll back to, and the step that reads it
 * for a rollout says why. So does a release whose Application was deleted while nothing was
 * moving it: the drift check writes it again from the plan, without a rollout (ROL-8).
 */
export async function carriesPlan(ctx: StepContext, apps: readonly GenericObject[], plan: string, rollouts: readonly RolloutObject[]): Promise<boolean> {
  const read = await readTarget(ctx, plan);
  if (!read.ok) return true;
  const rewritten = new Set(missingReleases(apps, read.plan.releases, rollouts).recreate.map((r) => r.name));
  // Only whether anything changes matters here, so every change may be judged alike.
  const assessed = assess(inventoryOf(apps), read.plan.releases, () => ({ verdict: 'unknown', why: '' }));
  return assessed.ok && assessed.steps.every((s) => s.action === 'Install' && rewritten.has(s.release));
}

/** The plan a rollout back to `active` moves from: the target of the last rollout that left the Applications elsewhere. */
export function rollbackFrom(rollouts: readonly RolloutObject[], active: string): string {
  const last = rollouts.at(-1);
  return last && last.spec.toPlan !== active ? last.spec.toPlan : active;
}

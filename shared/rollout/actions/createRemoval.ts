// Deleting a runtime with deletionPolicy Delete (FIN-3): one removal rollout deletes every owned
// release in reverse deployment order through the Remove steps (Argo CD's resources finalizer and
// the delete-rollout annotation, delete, wait until gone). It always needs an approver and holds
// while the runtime is paused or the engine suspended.
import { ANNOTATION } from '../../api/constants.ts';
import type { RolloutStep } from '../../api/runtimeRollout.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { createRollout } from '../io/record.ts';
import { moveOf, stepSummary } from '../rules/released.ts';
import type { RolloutState } from '../rules/stateKinds.ts';

const WHY = 'removing a release deletes its resources from the cluster, so a removal always needs an approver';

/** Highest deployment order first; an order that does not read goes first, as the newest would. */
export function removalOrder(apps: readonly GenericObject[]): GenericObject[] {
  const order = (a: GenericObject): number => {
    const n = Number.parseInt(a.metadata.annotations?.[ANNOTATION.releaseOrder] ?? '', 10);
    return Number.isNaN(n) ? Number.POSITIVE_INFINITY : n;
  };
  return [...apps].sort((a, b) => order(b) - order(a) || b.metadata.name.localeCompare(a.metadata.name));
}

export function createRemoval(
  ctx: StepContext,
  look: RolloutLook,
  due: Extract<RolloutState, { kind: 'RemovalDue' }>,
): Promise<RolloutObject> {
  const steps: RolloutStep[] = removalOrder(look.apps).map((a) => ({
    release: a.metadata.name,
    action: 'Remove',
    verdict: 'unknown',
    why: WHY,
  }));
  const spec = { type: 'Remove' as const, fromPlan: due.plan, toPlan: due.plan, steps, inventory: look.inventory };
  return createRollout(
    ctx,
    spec,
    look.settings.approvalMs,
    (created) => `the runtime was deleted with deletionPolicy Delete: ${moveOf(created)}, ${stepSummary(created)}`,
  );
}

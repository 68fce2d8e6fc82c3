// ADO-3: naming another runtime's UID in spec.adoption makes an Adopt rollout, whose only change
// is the ownership annotations of that runtime's Applications; it needs an approver, who confirms
// this is the stack to manage.
import { ANNOTATION } from '../../api/constants.ts';
import type { RolloutStep } from '../../api/runtimeRollout.ts';
import { planName } from '../../plans/digest.ts';
import { inventoryDigest } from '../rules/inventory.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { createRollout } from '../io/record.ts';
import { stepSummary } from '../rules/released.ts';
import type { RolloutState } from '../rules/stateKinds.ts';

const WHY =
  'adoption takes over Applications another runtime wrote; only their ownership annotations change, ' +
  'and a person confirms this is the stack to manage';

export function createAdoption(
  ctx: StepContext,
  look: RolloutLook,
  due: Extract<RolloutState, { kind: 'AdoptionDue' }>,
): Promise<RolloutObject> {
  const { apps, rebuilt } = due;
  const toPlan = planName(rebuilt.digest);
  const ordered = [...apps].sort(
    (a, b) =>
      Number(a.metadata.annotations?.[ANNOTATION.releaseOrder] ?? 0) -
        Number(b.metadata.annotations?.[ANNOTATION.releaseOrder] ?? 0) ||
      a.metadata.name.localeCompare(b.metadata.name),
  );
  const steps: RolloutStep[] = ordered.map((a) => ({
    release: a.metadata.name,
    action: 'Adopt',
    verdict: 'unknown',
    why: WHY,
  }));
  const wrote =
    rebuilt.plans.length === 1
      ? `every one was written by one plan (${planName(rebuilt.plans[0] ?? '')})`
      : `they were written by ${rebuilt.plans.length} plans (${rebuilt.plans.map(planName).join(', ')}), ` +
        'as after an orphaning mid-rollout';
  return createRollout(
    ctx,
    { type: 'Adopt', toPlan, steps, inventory: inventoryDigest(apps) },
    look.settings.approvalMs,
    (created) => `adoption of ${apps.length} Applications as plan ${toPlan}: ${wrote}; ${stepSummary(created)}`,
  );
}

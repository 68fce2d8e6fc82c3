// A rollout nobody approved before its deadline ends Expired; nothing was written to Argo CD.
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { endRollout } from '../io/record.ts';
import { type RolloutReport, endedBadly } from '../rules/released.ts';
import { namesOf } from '../rules/releaseWords.ts';
import { rolloutExpired } from '../../status/reasonMessages.released.ts';
import { pendingSteps } from './awaitApproval.ts';

export async function expire(ctx: StepContext, r: RolloutObject): Promise<RolloutReport> {
  const message = rolloutExpired(namesOf(r), r.spec.deadline);
  await endRollout(ctx, r, { outcome: 'Expired', message, keep: { steps: pendingSteps(r) } });
  return endedBadly(r, 'RolloutExpired', message);
}

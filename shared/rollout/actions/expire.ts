// A rollout nobody approved before its deadline ends Expired; nothing was written to Argo CD.
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { endRollout } from '../io/record.ts';
import { type RolloutReport, endedBadly, moveOf } from '../rules/released.ts';
import { pendingSteps } from './awaitApproval.ts';

export async function expire(ctx: StepContext, r: RolloutObject): Promise<RolloutReport> {
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) expired at ${r.spec.deadline} without an approval; nothing was written to Argo CD. Retry it with kubectl aicr retry ${r.metadata.name}, or change the target plan`;
  await endRollout(ctx, r, { outcome: 'Expired', message, keep: { steps: pendingSteps(r) } });
  return endedBadly(r, 'RolloutExpired', message);
}

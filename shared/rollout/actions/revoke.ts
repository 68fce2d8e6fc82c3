// A person's revocation (kubectl aicr revoke) ends an unfinished rollout Revoked where it stands:
// nothing more is written to Argo CD and whatever it moved stays at its target plan.
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { endRollout } from '../io/record.ts';
import { type RolloutReport, endedBadly } from '../rules/released.ts';
import { namesOf } from '../rules/releaseWords.ts';
import { rolloutRevoked } from '../../status/reasonMessages.released.ts';

export async function revoke(ctx: StepContext, r: RolloutObject): Promise<RolloutReport> {
  const moved = (r.status?.steps ?? []).some((s) => s.startedAt !== undefined);
  const message = rolloutRevoked(namesOf(r), r.spec.revocation, moved ? r.spec.toPlan : undefined);
  await endRollout(ctx, r, { outcome: 'Revoked', message, keep: { ...r.status } });
  return endedBadly(r, 'RolloutRevoked', message);
}

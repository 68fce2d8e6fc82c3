// A person's revocation (kubectl aicr revoke) ends an unfinished rollout Revoked where it stands:
// nothing more is written to Argo CD and whatever it moved stays at its target plan.
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import { endRollout } from '../io/record.ts';
import { type RolloutReport, endedBadly, moveOf } from '../rules/released.ts';

export async function revoke(ctx: StepContext, r: RolloutObject): Promise<RolloutReport> {
  const revocation = r.spec.revocation;
  const why = revocation?.reason ? `: ${revocation.reason}` : '';
  const moved = (r.status?.steps ?? []).some((s) => s.startedAt !== undefined);
  const where = moved
    ? `releases it already moved stay at plan ${r.spec.toPlan}`
    : 'nothing had been written to Argo CD';
  const message = `rollout ${r.metadata.name} (${moveOf(r)}) was revoked by ${revocation?.revokedBy ?? 'someone'} at ${revocation?.revokedAt ?? 'an unknown time'}${why}; nothing more is written and ${where}. Retry it with kubectl aicr retry ${r.metadata.name}, or change the target plan`;
  await endRollout(ctx, r, { outcome: 'Revoked', message, keep: { ...r.status } });
  return endedBadly(r, 'RolloutRevoked', message);
}

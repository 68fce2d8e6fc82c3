// `kubectl aicr revoke ROLLOUT [--reason TEXT]`: stops a rollout that has not ended where it
// stands. Records who, when and why as the requesting user (the name the API server gives them),
// then waits until the control plane ends the rollout Revoked. Exit 0 once it has; otherwise the
// reason, and a non-zero exit.
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { Refused, readRollout } from './approve.ts';
import { type Kubectl, whoami } from './kubectl.ts';
import { recordRequest, waitUntil } from './request.ts';

export function revokeProblem(r: RolloutObject): string | undefined {
  const name = r.metadata.name;
  if (r.status?.outcome) return `rollout ${name} has ended ${r.status.outcome}; there is nothing to revoke`;
  const given = r.spec.revocation;
  if (given)
    return (
      `rollout ${name} was already revoked by ${given.revokedBy} at ${given.revokedAt}; ` +
      `kubectl aicr describe ${name} shows it`
    );
  return undefined;
}

/** Revokes and waits; returns the rollout ended Revoked, or throws Refused. */
export async function revoke(
  k: Kubectl,
  name: string,
  reason: string | undefined,
  timeoutMs: number,
): Promise<RolloutObject> {
  const by = await whoami(k);
  const revocation = { revokedBy: by, revokedAt: kubeTime(new Date()), ...(reason ? { reason } : {}) };
  await recordRequest(
    k,
    name,
    { what: 'revocation', doing: 'revoke rollouts', problem: revokeProblem, spec: { revocation } },
    by,
  );
  const ended = await waitUntil(
    timeoutMs,
    `revocation of ${name} recorded, but the control plane has not ended it; kubectl aicr describe ${name} ` +
      'shows it once it does',
    async () => {
      const r = await readRollout(k, name);
      return r.status?.outcome ? r : undefined;
    },
  );
  if (ended.status?.outcome !== 'Revoked')
    throw new Refused(`rollout ${name} ended ${ended.status?.outcome ?? ''} before the revocation took effect`);
  return ended;
}

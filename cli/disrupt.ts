// `kubectl aicr approve --disrupt ROLLOUT` (GPU-2): lets an approved rollout start steps of
// releases that disrupt GPU Nodes although protected work still runs there. Recorded once, as
// the requesting user; the chart's admission policy holds it to people who may approve.
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { type Kubectl, whoami } from './kubectl.ts';
import { recordRequest } from './request.ts';

export function disruptProblem(r: RolloutObject): string | undefined {
  const name = r.metadata.name;
  if (r.status?.outcome) return `rollout ${name} has ended ${r.status.outcome}; there is nothing left to disrupt`;
  if (!r.spec.approval)
    return `rollout ${name} is not approved yet: approve it first with kubectl aicr approve ${name}`;
  const given = r.spec.disruption;
  if (given) return `${given.approvedBy} already let rollout ${name} disrupt running GPU work at ${given.approvedAt}`;
  return undefined;
}

export async function allowDisruption(k: Kubectl, name: string): Promise<{ approvedBy: string; approvedAt: string }> {
  const by = await whoami(k);
  const disruption = { approvedBy: by, approvedAt: kubeTime(new Date()) };
  await recordRequest(
    k,
    name,
    {
      what: 'disruption',
      doing: 'let rollouts disrupt running GPU work',
      problem: disruptProblem,
      spec: { disruption },
    },
    by,
  );
  return disruption;
}

// Retires the rollouts beyond the record's bound (rules/retention.ts says which), each only once
// it has ended: admission refuses the control plane's deletion of one that has not (SEC-11).
import { KIND } from '../../kube/kinds.ts';
import type { StepContext } from '../../look/contract.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import { rolloutsToRetire } from '../rules/retention.ts';

export async function retireRollouts(
  ctx: StepContext,
  records: readonly RolloutObject[],
  keep: number,
): Promise<string[]> {
  const retired: string[] = [];
  for (const r of rolloutsToRetire(records, keep)) {
    // Already gone is as good: another look retired it first.
    await ctx.kube.delete(KIND.runtimeRollout, r.metadata.name);
    retired.push(r.metadata.name);
  }
  if (retired.length > 0) ctx.log.info('retired rollouts beyond rollouts.keep', { rollouts: retired.join(',') });
  return retired;
}

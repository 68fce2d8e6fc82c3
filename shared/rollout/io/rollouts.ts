// The runtime's rollouts as the API lists them: parsed with the API's own schema and sorted
// oldest first, beside every listed object (a newer control plane's rollouts do not parse here).
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { type RolloutObject, byCreation, parseRollout } from '../rules/rolloutObject.ts';

/** The runtime's rollouts, oldest first. */
export async function listRollouts(kube: KubePort, runtimeUID: string): Promise<RolloutObject[]> {
  return (await listRolloutsRead(kube, runtimeUID)).rollouts;
}

/**
 * The runtime's rollouts, oldest first; every rollout that parses, whichever runtime made it (the
 * record, rules/retention.ts); and every rollout object as listed (for what the schema cannot say,
 * such as a newer version).
 */
export async function listRolloutsRead(
  kube: KubePort,
  runtimeUID: string,
): Promise<{ rollouts: RolloutObject[]; records: RolloutObject[]; listed: GenericObject[] }> {
  const { items } = await kube.list(KIND.runtimeRollout);
  const records = items.map(parseRollout).filter((r): r is RolloutObject => r !== undefined);
  const rollouts = records.filter((r) => r.spec.runtimeUID === runtimeUID).sort(byCreation);
  return { rollouts, records, listed: items };
}

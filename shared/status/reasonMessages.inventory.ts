// The long messages of the reasons the InventoryConsistent condition carries (a lost active
// plan, a moved release gone, objects of a newer control plane), beside the guide's entries for
// them (reasonGuide.ts). The newer objects' message shows on Released too, as the guide says.
import { NAMESPACES } from '../api/constants.ts';

const UNKNOWN_NEXT = 'The next rollout assesses every upgrade unknown and needs approval';

/** PlanMissing: the active plan's ConfigMap is gone and the Applications cannot rebuild it, for `cause`. */
export function planMissingActive(plan: string, cause: string): string {
  const missing = `the active plan ${plan} is missing from ${NAMESPACES.system}`;
  return `${missing} and cannot be rebuilt: ${cause}. ${UNKNOWN_NEXT}`;
}

/** What the owned Applications rebuild to instead of the active plan. */
export interface Rebuilt {
  readonly plan: string;
  readonly digest: string;
}

/** PlanMissing: the Applications rebuild to another plan, so one was edited outside the control plane (PLAN-4). */
export function planMissingRebuiltElsewhere(active: string, rebuilt: Rebuilt): string {
  return (
    `the active plan ${active} is missing from ${NAMESPACES.system} and cannot be written back: ` +
    `the owned Applications rebuild to plan ${rebuilt.plan} (digest ${rebuilt.digest}), not ${active}, ` +
    `so one was edited outside the control plane. ${UNKNOWN_NEXT}`
  );
}

/** PlanUnreadable: the active plan's ConfigMap does not read back. */
export function planUnreadableActive(problem: string): string {
  return (
    `${problem}. After a downgrade, upgrade again; ` +
    'otherwise delete the ConfigMap to have the active plan rebuilt from the Applications'
  );
}

/** PlanUnreadable: objects written by a newer control plane, each named; the runbook's entry starts from it. */
export function planUnreadableNewer(newer: readonly string[]): string {
  return (
    `objects written by a newer control plane: ${newer.join('; ')}; upgrade the control plane. ` +
    'Nothing is written to Argo CD while they exist, and they are never rewritten down'
  );
}

/** A release an unsuccessful rollout moved to its target plan. */
export interface MovedToTarget {
  readonly release: string;
  readonly rollout: string;
  readonly plan: string;
}

/**
 * MovedReleaseMissing: the Applications of releases an unsuccessful rollout moved are gone; they
 * are not written again from the active `plan`, which would roll them back without approval.
 */
export function movedReleaseMissing(plan: string, moved: readonly MovedToTarget[]): string {
  const first = moved[0];
  const list = moved.map((m) => `${m.release} (moved to plan ${m.plan} by rollout ${m.rollout})`).join(', ');
  return (
    `the Application of ${list} was deleted after a rollout that did not succeed moved it; ` +
    `it is not written again from the active plan ${plan}, which would roll it back without approval. ` +
    `Retry: kubectl aicr retry ${first?.rollout ?? '<rollout>'} creates a rollout that installs it ` +
    `at plan ${first?.plan ?? '<target>'}; or revert the runtime change behind that plan, ` +
    `which creates a rollout that installs it at ${plan}. Both need approval`
  );
}

// The long messages of the Released reasons that keep a rollout from being made or from starting
// (a plan missing, unreadable or without a recipe, a blocked transition, orphans, validation not
// installed), beside the guide's entries for them (reasonGuide.released.ts).
import { KINDS, NAMESPACES } from '../api/constants.ts';

/** PlanMissing: the target plan's ConfigMap is gone. */
export function planMissingTarget(plan: string): string {
  return (
    `the target plan ${plan} is missing from ${NAMESPACES.system}, so no rollout can be made; ` +
    'resolution writes it again, or pin a plan that exists'
  );
}

/** PlanMissing: the target plan's ConfigMap does not read back (`problem` says why). */
export function planMissingUnreadable(problem: string): string {
  return (
    `${problem}; no rollout is made from a plan that does not read back. ` +
    'Delete the ConfigMap to have it resolved again'
  );
}

/** PlanWithoutRecipe: no rollout is made to a rebuilt plan while validation is Required (PLAN-6). */
export function planWithoutRecipe(plan: string): string {
  return (
    `the target plan ${plan} was rebuilt from the Argo CD Applications, so it has no recipe, ` +
    'and spec.validation.deployment is Required: deployment validation cannot run, and nothing was written. ' +
    'Change the inputs so that resolution reproduces the plan ' +
    '(it then writes the resolved plan, with its recipe, in its place); pin another plan (spec.selection); ' +
    'or set spec.validation.deployment: Disabled for this rollout, which leaves it without validation evidence'
  );
}

/** PlanWithoutRecipe: a rollout made before its plan lost its recipe cannot start (VAL-1). */
export function planWithoutRecipeAtStart(plan: string): string {
  return (
    `the target plan ${plan} has no recipe (it was rebuilt from the Applications), ` +
    'and deployment validation is Required. Nothing was written. ' +
    'Change the inputs so that resolution reproduces the plan, pin another plan, ' +
    'or set spec.validation.deployment: Disabled for this rollout'
  );
}

/** ValidationUnavailable: what deployment validation needs and lacks, each named. */
export function validationUnavailable(missing: readonly string[]): string {
  return (
    `deployment validation is not installed: ${missing.join(', ')} missing. ` +
    "Install or upgrade the control plane's chart with aicr.validatorImages set, " +
    'or set spec.validation.deployment: Disabled to roll out without validation evidence'
  );
}

/** A release whose move needs a migration, and why. */
export interface BlockedMove {
  readonly release: string;
  readonly why: string;
}

/** TransitionBlocked: the move to `plan` needs migrations the control plane does not perform. */
export function transitionBlocked(plan: string, blocked: readonly BlockedMove[]): string {
  const list = blocked.map((b) => `${b.release}: ${b.why}`).join('; ');
  return (
    `the move to plan ${plan} needs a migration the control plane does not perform (${list}). ` +
    'No rollout is created and nothing is written to Argo CD. Return to a plan without that change: ' +
    'set spec.selection to mode: Pinned with the active plan, ' +
    'or revert the change to the runtime that led to this plan'
  );
}

/** The Applications another runtime wrote, by that runtime's UID. */
export interface OrphanOwner {
  readonly uid: string;
  readonly apps: readonly string[];
}

/** OrphanedObjectsPresent: nothing is adopted silently; the message gives the patch that adopts. */
export function orphanedObjectsPresent(runtime: string, owners: readonly OrphanOwner[]): string {
  const list = owners.map((o) => `runtime ${o.uid}: ${[...o.apps].sort().join(', ')}`).join('; ');
  const adoption = `{"spec":{"adoption":{"runtimeUID":"${owners[0]?.uid ?? '<uid>'}"}}}`;
  const patch = `kubectl patch ${KINDS.clusterRuntime.kind.toLowerCase()} ${runtime} --type merge -p '${adoption}'`;
  return (
    `Argo CD holds Applications another runtime wrote (${list}). ` +
    'Nothing is adopted silently and nothing is written to Argo CD meanwhile. ' +
    `To take them over, name their runtime: ${patch}; ` +
    'to leave them unmanaged, delete them (their resources keep running)'
  );
}

/** PlanUnreadable: a deletion with deletionPolicy Orphan waits for the active plan to read back. */
export function planUnreadableOrphaning(problem: string): string {
  return (
    `the deletion (deletionPolicy Orphan) waits: ${problem}. ` +
    'Nothing is marked orphaned while the active plan does not read back; ' +
    'upgrade the control plane to the version that wrote it, or remove the finalizer by hand (docs/deletion.md)'
  );
}

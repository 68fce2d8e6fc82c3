// The RuntimeRollout API: one object per move of the runtime from one plan to another.
// Cluster-scoped, so it never clashes with other projects' namespaced "rollouts". Names, UIDs
// and plans follow the same rules, with the same messages, as on the ClusterRuntime.
import * as z from 'zod';
import { ConditionSchema } from './condition.ts';
import { apiObject, described, patternString } from './fields.ts';
import { COMPONENT_NAME, PLAN_NAME, uidRule } from './names.ts';

/** Most steps one rollout can hold: every release of a recipe, with room to spare. */
export const MAX_ROLLOUT_STEPS = 256;

export const RolloutStepSchema = apiObject(
  z.object({
    release: patternString(COMPONENT_NAME, 'The release (one component of the plan) this step acts on.'),
    action: described(z.enum(['Install', 'Upgrade', 'Remove', 'Adopt']), 'What the step does to the release.'),
  }),
).meta({ description: 'One release and what to do with it.' });

export const RuntimeRolloutSpecSchema = apiObject(
  z.object({
    runtimeUID: patternString(uidRule('the ClusterRuntime this rollout belongs to'), 'UID of the ClusterRuntime this rollout belongs to.'),
    type: described(z.enum(['Upgrade', 'Adopt', 'Remove']), 'Upgrade moves to a new plan, Adopt takes over orphaned releases, Remove deletes every release.'),
    fromPlan: patternString(PLAN_NAME, 'The plan the cluster runs before the rollout; absent for a first install.').optional(),
    toPlan: patternString(PLAN_NAME, 'The plan the cluster runs once the rollout is done.'),
    steps: described(z.array(RolloutStepSchema).max(MAX_ROLLOUT_STEPS), 'The releases to change, in order.').prefault([]),
  }),
).meta({ description: 'One move of the runtime from one plan to another.' });
export type RuntimeRolloutSpec = z.output<typeof RuntimeRolloutSpecSchema>;

export const RuntimeRolloutStatusSchema = z
  .object({
    observedGeneration: described(z.int().min(0), 'The spec generation this status describes.').optional(),
    conditions: described(z.array(ConditionSchema).max(32), 'Ready and the rollout conditions, one per type.')
      .meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] })
      .optional(),
    currentStep: described(z.int().min(0).max(MAX_ROLLOUT_STEPS), 'Index of the step in progress.').optional(),
  })
  .meta({ description: 'Progress of the rollout; written only by the control plane.' });

export const RuntimeRolloutSchema = z.object({ spec: RuntimeRolloutSpecSchema });

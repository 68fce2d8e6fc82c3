// The RuntimeRollout API: one object per move of the runtime from one plan to another.
// Cluster-scoped, so it never clashes with other projects' namespaced "rollouts".
import * as z from 'zod';
import { ConditionSchema } from './condition.ts';

export const RolloutStepSchema = z.object({
  release: z.string().min(1).max(63),
  action: z.enum(['Install', 'Upgrade', 'Remove', 'Adopt']),
});

export const RuntimeRolloutSpecSchema = z.object({
  runtimeUID: z.uuid({ error: 'must be the UID of the ClusterRuntime this rollout belongs to' }),
  type: z.enum(['Upgrade', 'Adopt', 'Remove']),
  fromPlan: z.string().optional(),
  toPlan: z.string().min(1),
  steps: z.array(RolloutStepSchema).max(256).default([]),
});
export type RuntimeRolloutSpec = z.output<typeof RuntimeRolloutSpecSchema>;

export const RuntimeRolloutStatusSchema = z.object({
  observedGeneration: z.int().min(0).optional(),
  conditions: z.array(ConditionSchema).optional().meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  currentStep: z.int().min(0).optional(),
});

export const RuntimeRolloutSchema = z.object({ spec: RuntimeRolloutSpecSchema });

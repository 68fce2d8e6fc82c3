// Pure: from what the resolve step observed (and the clock) to the status it should write.
// Nothing here reads or writes; every branch is covered by table tests.
import { CONDITION, FIELD_MANAGER, REASON } from '../../api/constants.ts';
import type { StatusPatch } from '../../kube/types.ts';
import { type DesiredCondition, mergeConditions, sameConditions } from '../../status/conditions.ts';
import type { ResolveObservation } from './observe.ts';
import { describeProblems, specProblems } from './specIssues.ts';

export type ResolveAction = { readonly kind: 'applyStatus'; readonly patch: StatusPatch };

function invalidSpec(message: string): DesiredCondition[] {
  const reason = REASON.invalidSpec;
  return [
    { type: CONDITION.stalled, status: 'True', reason, message },
    { type: CONDITION.ready, status: 'False', reason, message },
    { type: CONDITION.reconciling, status: 'False', reason, message: 'waiting for a valid spec' },
    { type: CONDITION.resolved, status: 'False', reason, message },
  ];
}

function resolving(generation: number): DesiredCondition[] {
  const reason = REASON.resolving;
  return [
    { type: CONDITION.reconciling, status: 'True', reason, message: `resolving a plan for generation ${generation}` },
    { type: CONDITION.ready, status: 'False', reason, message: 'no plan resolved yet' },
    { type: CONDITION.stalled, status: 'False', reason, message: 'resolution in progress' },
    { type: CONDITION.resolved, status: 'False', reason, message: 'discovering the cluster and resolving a plan' },
  ];
}

export function decide(obs: ResolveObservation, now: Date): ResolveAction[] {
  const runtime = obs.runtime;
  if (!runtime || runtime.metadata.deletionTimestamp) return [];
  const generation = runtime.metadata.generation ?? 0;
  const problems = specProblems(runtime);
  const desired = problems.length > 0 ? invalidSpec(describeProblems(problems)) : resolving(generation);
  const current = runtime.status?.conditions;
  const conditions = mergeConditions(current, desired, generation, now);
  if (runtime.status?.observedGeneration === generation && sameConditions(current, conditions)) return [];
  return [
    {
      kind: 'applyStatus',
      patch: {
        name: runtime.metadata.name,
        resourceVersion: runtime.metadata.resourceVersion,
        fieldManager: FIELD_MANAGER.resolve,
        status: { observedGeneration: generation, conditions },
      },
    },
  ];
}

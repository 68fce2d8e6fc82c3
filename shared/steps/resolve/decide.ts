// Pure: from the runtime as read (and nothing else yet) to the Resolved condition. Every
// branch is covered by table tests.
import { CONDITION } from '../../api/constants.ts';
import type { RuntimeObject } from '../../kube/kinds.ts';
import type { DesiredCondition } from '../../status/conditions.ts';
import type { Reason } from '../../api/reasons.ts';
import { describeProblems } from '../../api/specProblem.ts';
import { specProblems } from './specIssues.ts';

function resolved(status: DesiredCondition['status'], reason: Reason, message: string): DesiredCondition {
  return { type: CONDITION.resolved, status, reason, message };
}

/** The resolve step's owned conditions; undefined while the runtime is being deleted. */
export function decide(runtime: RuntimeObject): DesiredCondition[] | undefined {
  if (runtime.metadata.deletionTimestamp) return undefined;
  const problems = specProblems(runtime);
  if (problems.length > 0) return [resolved('False', 'InvalidSpec', describeProblems(problems))];
  return [
    resolved(
      'False',
      'Resolving',
      `discovering the cluster and resolving a plan for generation ${runtime.metadata.generation ?? 0}`,
    ),
  ];
}

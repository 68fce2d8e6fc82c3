// Why a stored runtime is not acceptable, as "<field path>: <what to fix>". Built from zod's
// issue paths and messages, which never repeat the offending value.
import { ClusterRuntimeSchema } from '../../api/clusterRuntime.ts';
import type { SpecProblem } from '../../api/specProblem.ts';
import type { RuntimeObject } from '../../kube/kinds.ts';

export function specProblems(runtime: RuntimeObject): SpecProblem[] {
  const parsed = ClusterRuntimeSchema.safeParse({ metadata: { name: runtime.metadata.name }, spec: runtime.spec });
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'spec', message: i.message }));
}

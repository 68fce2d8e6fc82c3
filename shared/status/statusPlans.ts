// The plans a runtime's status names (status.activePlan, status.targetPlan), read the one way
// every step reads them: a name, or undefined when the field is absent or empty.
import type { RuntimeObject } from '../kube/kinds.ts';

export function statusPlan(
  runtime: RuntimeObject,
  key: 'activePlan' | 'targetPlan' | 'candidatePlan',
): string | undefined {
  const value = (runtime.status as Record<string, unknown> | undefined)?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

// Reading plans back in tests, as the resolve step's identity sees them.
import assert from 'node:assert/strict';
import { NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';

/** The plan ConfigMap `name` in aicr-system, read whole; fails the test when it is missing or unreadable. */
export async function readPlanNamed(kube: KubePort, name: string): Promise<Plan> {
  const cm = await kube.get(KIND.configMap, name, NAMESPACES.system);
  assert.ok(cm, `${name} exists`);
  const read = readPlanConfigMap(cm);
  assert.ok(read.ok, read.ok ? '' : read.problem);
  return read.plan;
}

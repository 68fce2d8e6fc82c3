// Which plan the runtime moves to: the candidate under Automatic, the named plan under Pinned
// (PLAN-5, PLAN-7). A pin is checked every time, since a person may delete or restore the
// ConfigMap it names; the previous target stays in status while the pin is refused.
import type { ClusterRuntimeSpec } from '../api/clusterRuntime.ts';
import { ANNOTATION, LABEL, NAMESPACES } from '../api/constants.ts';
import {
  notFoundNotAPlan,
  notFoundPinned,
  planOfAnotherRuntime,
  planUnreadablePinned,
} from '../status/reasonMessages.resolved.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Reason } from '../api/reasons.ts';
import { readPlanConfigMap } from './store.ts';

export type Selection =
  | { readonly ok: true; readonly target: string; readonly pinned: boolean }
  | {
      readonly ok: false;
      readonly reason: Extract<Reason, 'NotFound' | 'PlanUnreadable' | 'PlanOfAnotherRuntime'>;
      readonly message: string;
    };

export async function selectTarget(
  kube: KubePort,
  spec: ClusterRuntimeSpec,
  runtimeUID: string,
  candidate: string,
): Promise<Selection> {
  const pin = spec.selection.mode === 'Pinned' ? spec.selection.plan : undefined;
  if (!pin) return { ok: true, target: candidate, pinned: false };
  const cm = await kube.get(KIND.configMap, pin, NAMESPACES.system);
  if (!cm) return { ok: false, reason: 'NotFound', message: notFoundPinned(pin) };
  const read = readPlanConfigMap(cm);
  if (!read.ok) {
    if (cm.metadata.labels?.[LABEL.role] === undefined)
      return { ok: false, reason: 'NotFound', message: notFoundNotAPlan(pin) };
    return { ok: false, reason: 'PlanUnreadable', message: planUnreadablePinned(read.problem) };
  }
  const owner = cm.metadata.annotations?.[ANNOTATION.runtimeUID] ?? '';
  if (owner !== runtimeUID) {
    return { ok: false, reason: 'PlanOfAnotherRuntime', message: planOfAnotherRuntime(pin, owner, runtimeUID) };
  }
  return { ok: true, target: pin, pinned: true };
}

// Which plan the runtime moves to: the candidate under Automatic, the named plan under Pinned
// (PLAN-5, PLAN-7). A pin is checked every time, since a person may delete or restore the
// ConfigMap it names; the previous target stays in status while the pin is refused.
import type { ClusterRuntimeSpec } from '../api/clusterRuntime.ts';
import { ANNOTATION, LABEL, NAMESPACES } from '../api/constants.ts';
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

const LIST_PLANS = `kubectl get configmaps -n ${NAMESPACES.system} -l ${LABEL.role}=plan -L ${LABEL.schemaVersion}`;

export async function selectTarget(
  kube: KubePort,
  spec: ClusterRuntimeSpec,
  runtimeUID: string,
  candidate: string,
): Promise<Selection> {
  const pin = spec.selection.mode === 'Pinned' ? spec.selection.plan : undefined;
  if (!pin) return { ok: true, target: candidate, pinned: false };
  const cm = await kube.get(KIND.configMap, pin, NAMESPACES.system);
  const fix = `pin a plan that exists (${LIST_PLANS}) or set spec.selection.mode: Automatic`;
  if (!cm)
    return {
      ok: false,
      reason: 'NotFound',
      message: `plan ${pin} is missing: spec.selection.plan pins it, but no such ConfigMap is in ${NAMESPACES.system} (retention may have removed it before the pin); ${fix}`,
    };
  const read = readPlanConfigMap(cm);
  if (!read.ok) {
    if (cm.metadata.labels?.[LABEL.role] === undefined)
      return {
        ok: false,
        reason: 'NotFound',
        message: `plan ${pin} is missing: ${NAMESPACES.system}/${pin} is a ConfigMap but not a plan; ${fix}`,
      };
    return {
      ok: false,
      reason: 'PlanUnreadable',
      message: `${read.problem}. spec.selection pins it; after a downgrade, upgrade the control plane again, or delete the ConfigMap and ${fix}`,
    };
  }
  const owner = cm.metadata.annotations?.[ANNOTATION.runtimeUID] ?? '';
  if (owner !== runtimeUID) {
    return {
      ok: false,
      reason: 'PlanOfAnotherRuntime',
      message: `plan ${pin} was resolved for runtime ${owner}, not for this runtime ${runtimeUID}, so its Applications would belong to that runtime; pin a plan this runtime resolved, or set spec.selection.mode: Automatic to follow this runtime's candidate`,
    };
  }
  return { ok: true, target: pin, pinned: true };
}

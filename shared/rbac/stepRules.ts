// What a step's identity may do: the rules its row's flags imply, which no step's rbac.ts repeats,
// after the rules of its rbac.ts. The flags already make the framework read the configuration at
// every look, and say what a step records Events on; the rights to do so follow from the same flag.
import { CONFIGURATION, NAMESPACES } from '../api/constants.ts';
import type { KubeRule } from '../api/kubeRule.ts';
import type { StepRow } from '../steps/table.ts';

const READS_CONFIGURATION: KubeRule = {
  apiGroups: [''],
  resources: ['configmaps'],
  verbs: ['get'],
  namespace: CONFIGURATION.namespace,
  resourceNames: [CONFIGURATION.name],
  why: 'reads the configuration the chart renders',
};

/** An Event seen again is patched with its count, hence get and patch beside create. */
function recordsEvents(on: string): KubeRule {
  return {
    apiGroups: [''],
    resources: ['events'],
    verbs: ['create', 'get', 'patch'],
    namespace: NAMESPACES.events,
    why: `records Events on ${on}, counting repeats`,
  };
}

export function stepRules(row: StepRow): KubeRule[] {
  return [
    ...row.kube,
    ...(row.readsConfiguration ? [READS_CONFIGURATION] : []),
    ...(row.recordsEventsOn === undefined ? [] : [recordsEvents(row.recordsEventsOn)]),
  ];
}

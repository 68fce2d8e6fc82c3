// The shape of one RBAC rule the chart grants. The steps declare their rules in it
// (shared/steps/<step>/rbac.ts) and the RBAC renderer above them writes it out, so it sits on
// the ground floor both can reach.
import { API_GROUP } from './constants.ts';

/** One RBAC rule a step's identity holds; `namespace` makes it a Role there instead of cluster-wide. */
export interface KubeRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly namespace?: string;
  readonly resourceNames?: readonly string[];
  /**
   * Names the chart's values hold (paths such as `registry.auth.staticSecretRef`), added to
   * resourceNames when Helm renders the Role: a Secret a person names in the values.
   */
  readonly resourceNamesFromValues?: readonly string[];
  /** Why the step needs it; written beside the rule in the chart's RBAC. */
  readonly why: string;
}

/** What most steps hold on their runtime: reading the one they were sent, and applying what they report on it. */
export function runtimeRules(applies: string): KubeRule[] {
  return [
    { apiGroups: [API_GROUP], resources: ['clusterruntimes'], verbs: ['get'], why: 'reads the runtime it was sent' },
    { apiGroups: [API_GROUP], resources: ['clusterruntimes/status'], verbs: ['patch'], why: `applies ${applies}` },
  ];
}

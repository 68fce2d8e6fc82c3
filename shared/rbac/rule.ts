// One RBAC rule, apart from the step table so a step's rules (shared/steps/<step>/rbac.ts) can
// name the type without importing the table that imports them.

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

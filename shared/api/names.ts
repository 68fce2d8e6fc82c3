// The shapes of names and identifiers the two APIs share, each with the message a user reads
// when a value does not fit. Every pattern uses ASCII classes only, so JavaScript and the API
// server's RE2 accept exactly the same strings.
import type { PatternRule } from './fields.ts';

/** A component (ClusterRuntime spec.components key) or a Helm release: a DNS-1123 label. */
export const COMPONENT_NAME: PatternRule = {
  pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
  maxLength: 63,
  message:
    "must be a component name: at most 63 lowercase letters, digits or '-', starting and ending with a letter or digit",
};

/** An EKS cluster's name, as a fleet lists it (ADR 0019) and as queue messages carry it. */
export const EKS_CLUSTER_NAME: PatternRule = {
  pattern: /^[0-9A-Za-z][A-Za-z0-9_-]*$/,
  maxLength: 100,
  message: 'must list cluster names (letters, digits, - and _), comma-separated',
};

/** The name of a plan ConfigMap the control plane wrote. */
export const PLAN_NAME: PatternRule = {
  pattern: /^aicr-plan-[a-z0-9]{8,64}$/,
  maxLength: 74,
  message: 'must name a plan ConfigMap: aicr-plan- followed by 8 to 64 lowercase letters or digits',
};

/** An AICR release tag. */
export const AICR_VERSION: PatternRule = {
  pattern: /^v[0-9]+[.][0-9]+[.][0-9]+$/,
  maxLength: 32,
  message: 'must be an AICR release such as v1.1.0',
};

/** A Kubernetes object UID as the API server prints it: a lowercase, dashed UUID. */
export function uidRule(whose: string): PatternRule {
  return {
    pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    maxLength: 36,
    message: `must be the UID of ${whose}, a lowercase UUID such as 5d3c1e2a-7b9f-4c61-9a0e-3f2b8d4c6e10`,
  };
}

/** Most components a runtime can override; a recipe has a few dozen. */
export const MAX_COMPONENTS = 64;

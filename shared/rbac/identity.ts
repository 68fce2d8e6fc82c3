// One identity the control plane's RBAC is rendered for: a step's or the forwarder's IAM group, or
// the ServiceAccount AICR's own Jobs run as, with its rules.
import type { KubeRule } from '../api/kubeRule.ts';

export interface Identity {
  readonly name: string;
  /** The group an IAM role maps to; or, for AICR's own Jobs, the ServiceAccount they run as. */
  readonly group?: string;
  readonly serviceAccount?: { readonly namespace: string; readonly name: string };
  readonly rules: readonly KubeRule[];
}

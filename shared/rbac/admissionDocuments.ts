// The documents every chart admission policy is made of: the ValidatingAdmissionPolicy, its
// binding (Deny, with the parameter it reads, if any), and the generated file's header.
import { stringify } from 'yaml';
import { KEEP_ON_UNINSTALL } from '../api/constants.ts';

export const ADMISSION_VERSION = 'admissionregistration.k8s.io/v1';
/** The label the API server puts on every namespace, naming it: how a selector picks namespaces. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface PolicySpec {
  readonly paramKind?: { readonly apiVersion: string; readonly kind: string };
  readonly matchConstraints: Record<string, unknown>;
  readonly matchConditions: readonly { readonly name: string; readonly expression: string }[];
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
  readonly validations: readonly Record<string, string>[];
}

/**
 * Why a policy or binding that reads a parameter outlives the chart: the API server stops its
 * watch of a parameter kind once no bound policy names it, and (seen on kube-apiserver 1.34)
 * never starts it again, so after `helm uninstall` and a new install the policy read a copy of
 * the ConfigMaps frozen at the uninstall: aicr-config missing, every request allowed. Kept, the
 * watch never stops; without the chart its RBAC is gone, so the kept policies constrain nothing.
 */
const parameterisedMetadata = (name: string): Record<string, unknown> => ({
  name,
  annotations: { ...KEEP_ON_UNINSTALL },
});

/** A policy that fails closed and answers Forbidden (403), as for any refusal of who is asking. */
export function admissionPolicy(name: string, spec: PolicySpec): Record<string, unknown> {
  return {
    apiVersion: ADMISSION_VERSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: spec.paramKind ? parameterisedMetadata(name) : { name },
    spec: {
      failurePolicy: 'Fail',
      ...(spec.paramKind ? { paramKind: spec.paramKind } : {}),
      matchConstraints: spec.matchConstraints,
      matchConditions: spec.matchConditions,
      ...(spec.variables ? { variables: spec.variables } : {}),
      validations: spec.validations.map((v) => ({ ...v, reason: 'Forbidden' })),
    },
  };
}

/**
 * The API server's refusal for a missing parameter names the policy and the binding and nothing
 * else, so a binding that denies then is named for the ConfigMap it needs.
 */
export function admissionBindingName(
  name: string,
  paramRef?: { readonly name: string; readonly namespace?: string; readonly whenMissing: 'Deny' | 'Allow' },
): string {
  return paramRef?.whenMissing === 'Deny' && paramRef.namespace
    ? `${name}-needs-configmap-${paramRef.namespace}-${paramRef.name}`
    : name;
}

/**
 * The binding of policy `name`, and what a missing parameter object does (SEC-8). The API server
 * looks the parameter up before it reads matchConditions, so Deny refuses every request the
 * policy's matchConstraints take, whoever sends it: it fails closed only where those constraints
 * are the control plane's own namespaces. Where they take Argo CD's writes too, Deny would stop
 * Argo CD cluster-wide, so such a policy says Allow and what must hold without it lives in a
 * policy without a parameter (docs/security.md says which is which).
 */
export function admissionBinding(
  name: string,
  paramRef?: {
    readonly name: string;
    readonly namespace?: string;
    readonly whenMissing: 'Deny' | 'Allow';
  },
): Record<string, unknown> {
  const bindingName = admissionBindingName(name, paramRef);
  return {
    apiVersion: ADMISSION_VERSION,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: paramRef ? parameterisedMetadata(bindingName) : { name },
    spec: {
      policyName: name,
      validationActions: ['Deny'],
      ...(paramRef
        ? {
            paramRef: {
              name: paramRef.name,
              ...(paramRef.namespace ? { namespace: paramRef.namespace } : {}),
              parameterNotFoundAction: paramRef.whenMissing,
            },
          }
        : {}),
    },
  };
}

export function renderAdmissionFile(header: readonly string[], docs: readonly Record<string, unknown>[]): string {
  return `${header.map((l) => `# ${l}`).join('\n')}\n${docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n')}`;
}

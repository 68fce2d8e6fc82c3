// The documents every chart admission policy is made of: the ValidatingAdmissionPolicy, its
// binding (Deny, with the parameter it reads, if any), and the generated file's header.
import { stringify } from 'yaml';

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

/** A policy that fails closed and answers Forbidden (403), as for any refusal of who is asking. */
export function admissionPolicy(name: string, spec: PolicySpec): Record<string, unknown> {
  return {
    apiVersion: ADMISSION_VERSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
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
 * The binding of policy `name`. A missing parameter object lets the request through: the API
 * server looks the parameter up before it reads matchConditions, so Deny would refuse everyone,
 * Argo CD's own status writes included. What must hold without it lives in a policy without one.
 */
export function admissionBinding(name: string, paramRef?: { readonly name: string; readonly namespace?: string }): Record<string, unknown> {
  return {
    apiVersion: ADMISSION_VERSION,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName: name, validationActions: ['Deny'], ...(paramRef ? { paramRef: { ...paramRef, parameterNotFoundAction: 'Allow' } } : {}) },
  };
}

export function renderAdmissionFile(header: readonly string[], docs: readonly Record<string, unknown>[]): string {
  return `${header.map((l) => `# ${l}`).join('\n')}\n${docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n')}`;
}

// Renders the chart's admission policies that bound the control plane's Argo CD writes
// (infra/chart/templates/application-ownership.yaml, SEC-3). RBAC must grant Applications
// cluster-wide (Argo CD's namespace may not exist when the chart installs) and cannot tell one
// Application from another, so without these an identity that writes Applications could write
// any Application in any AppProject, and so deploy anything anywhere through Argo CD, or delete a
// person's app-of-apps. Two policies:
// - ownership, against the cluster's one ClusterRuntime (its parameter): an Application the
//   control plane creates, changes or deletes carries that runtime's UID, before and after; the
//   one change of owner allowed is the Adopt step's, from the UID the runtime's spec.adoption names;
// - project, with the chart's values rendered in and no parameter: an Application it writes names
//   the configured AppProject (a change may keep the project it had), deploys to a namespace
//   argocd.namespaces lists, and to the configured cluster.
// Without a runtime the ownership policy lets requests through (its binding says Allow): the API
// server looks a parameter up before matchConditions, so Deny would refuse Argo CD's own writes to
// every Application whenever no runtime exists (before the first, after an Orphan deletion). What
// holds then: the project policy above, and the finalizer policy (applicationAdmission.ts), both
// without a parameter. No control-plane identity may delete the runtime or the configuration.
// `npm run gen:rbac` writes it beside the RBAC; a unit test fails when the committed file is stale.
import {
  ANNOTATION,
  GROUP_VERSION,
  KINDS,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  RUNTIME_NAME,
  SECURITY_ADMISSION,
} from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { admissionBinding, admissionPolicy, renderAdmissionFile } from './admissionDocuments.ts';
import { fromTheControlPlane, managedByTheControlPlane, runtimeUidOf } from './applicationAdmission.ts';

const q = celString;
const RUNTIME_UID = 'params.metadata.uid';
const ADOPTED_FROM = `params.spec.?adoption.?runtimeUID.orValue('')`;

export const OWNED_BEFORE =
  `request.operation == 'CREATE' || ${runtimeUidOf('oldObject')} == ${RUNTIME_UID} || ` +
  `(${ADOPTED_FROM} != '' && ${runtimeUidOf('oldObject')} == ${ADOPTED_FROM})`;
export const OWNED_AFTER =
  `request.operation == 'DELETE' || ` +
  `(${runtimeUidOf('object')} == ${RUNTIME_UID} && ${managedByTheControlPlane('object')})`;

// The chart's own values, which Helm writes into the project policy as CEL literals when it
// renders (the helpers in templates/_helpers.tpl): the policy reads no parameter, so nothing a
// person or a namespace deletion removes can open it (SEC-8).
export const CHART_LITERAL = {
  project: 'aicr.cel.project',
  namespaces: 'aicr.cel.namespaces',
  namespacePrefixes: 'aicr.cel.namespacePrefixes',
  destinationServer: 'aicr.cel.destinationServer',
  destinationName: 'aicr.cel.destinationName',
} as const;
/** Where a Helm include goes in the generated CEL; renderApplicationOwnership swaps each for its include. */
const slot = (helper: string): string => `__${helper.replaceAll('.', '_')}__`;
const PROJECT = slot(CHART_LITERAL.project);
export const IN_THE_PROJECT =
  `object.spec.project == ${PROJECT} || ` + '(oldObject != null && object.spec.project == oldObject.spec.project)';
const DESTINATION_NAMESPACE = "object.spec.destination.?namespace.orValue('')";
export const TO_AN_ALLOWED_NAMESPACE =
  `${DESTINATION_NAMESPACE} in ${slot(CHART_LITERAL.namespaces)} || ` +
  `${slot(CHART_LITERAL.namespacePrefixes)}.exists(p, ${DESTINATION_NAMESPACE}.startsWith(p))`;
export const TO_THE_CLUSTER =
  `${slot(CHART_LITERAL.destinationName)} != '' ? ` +
  `object.spec.destination.?name.orValue('') == ${slot(CHART_LITERAL.destinationName)} : ` +
  `(object.spec.destination.?server.orValue('') == ${slot(CHART_LITERAL.destinationServer)} && ` +
  `object.spec.destination.?name.orValue('') == '')`;

// The fixed ends of what a refused writer reads; CEL puts the names in front.
const NOT_ITS_OWN =
  ` belongs to no runtime of this control plane (annotation ${ANNOTATION.runtimeUID} is not ` +
  `ClusterRuntime ${RUNTIME_NAME}'s UID, nor the one its spec.adoption names): ` +
  'the control plane changes and deletes only its own Applications';
const MUST_BE_ITS_OWN =
  ` must carry ClusterRuntime ${RUNTIME_NAME}'s UID in annotation ${ANNOTATION.runtimeUID} and label ` +
  `${LABEL.managedBy}=${MANAGED_BY_VALUE}: the control plane writes only Applications of its own runtime`;
const ONLY_THE_PROJECT =
  " (the chart's argocd.project): the control plane writes Applications only into the configured AppProject";
const ONLY_THOSE_NAMESPACES =
  " (the chart's argocd.namespaces): the control plane deploys only there; a person adds a namespace with " +
  '`helm upgrade --reuse-values --set-json argocd.namespaces=[...]`';
const ONLY_THAT_CLUSTER = " (the chart's argocd.destination): the control plane deploys only to the configured cluster";

const APPLICATION_WRITES = (operations: readonly string[]): Record<string, unknown> => ({
  resourceRules: [
    { apiGroups: ['argoproj.io'], apiVersions: ['v1alpha1'], resources: ['applications'], operations: [...operations] },
  ],
});

export function applicationOwnershipPolicy(): Record<string, unknown> {
  const app = `'Application ' + request.namespace + '/' + request.name`;
  return admissionPolicy(SECURITY_ADMISSION.applicationOwnership, {
    paramKind: { apiVersion: GROUP_VERSION, kind: KINDS.clusterRuntime.kind },
    matchConstraints: APPLICATION_WRITES(['CREATE', 'UPDATE', 'DELETE']),
    matchConditions: [{ name: 'from-the-control-plane', expression: fromTheControlPlane() }],
    validations: [
      {
        expression: OWNED_BEFORE,
        messageExpression: `${app} + ${q(NOT_ITS_OWN)}`,
      },
      {
        expression: OWNED_AFTER,
        messageExpression: `${app} + ${q(MUST_BE_ITS_OWN)}`,
      },
    ],
  });
}

export function applicationProjectPolicy(): Record<string, unknown> {
  const app = `'Application ' + request.namespace + '/' + request.name`;
  return admissionPolicy(SECURITY_ADMISSION.applicationProject, {
    matchConstraints: APPLICATION_WRITES(['CREATE', 'UPDATE']),
    matchConditions: [{ name: 'from-the-control-plane', expression: fromTheControlPlane() }],
    validations: [
      {
        expression: IN_THE_PROJECT,
        messageExpression:
          `${app} + ' names AppProject ' + object.spec.project + ', not ' + ${PROJECT} + ` + q(ONLY_THE_PROJECT),
      },
      {
        expression: TO_AN_ALLOWED_NAMESPACE,
        messageExpression:
          `${app} + ' deploys to namespace ' + ${DESTINATION_NAMESPACE} + ', which is not listed' + ` +
          q(ONLY_THOSE_NAMESPACES),
      },
      {
        expression: TO_THE_CLUSTER,
        messageExpression: `${app} + ' deploys to another cluster than the configured one' + ${q(ONLY_THAT_CLUSTER)}`,
      },
    ],
  });
}

export function renderApplicationOwnership(): string {
  return renderAdmissionFile(
    [
      'Generated by `npm run gen:rbac` from shared/api/constants.ts by shared/rbac/applicationOwnership.ts;',
      "do not edit. The control plane's identities write only their runtime's own Applications, in the",
      `configured AppProject, to argocd.namespaces, in ${NAMESPACES.argocd} or wherever they are (SEC-3, SEC-8).`,
    ],
    [
      applicationOwnershipPolicy(),
      // Both match every Application write, Argo CD's own included: Deny would stop Argo CD
      // cluster-wide before the first runtime and after an Orphan deletion (docs/security.md, SEC-8).
      admissionBinding(SECURITY_ADMISSION.applicationOwnership, { name: RUNTIME_NAME, whenMissing: 'Allow' }),
      applicationProjectPolicy(),
      admissionBinding(SECURITY_ADMISSION.applicationProject),
    ],
  ).replace(/__aicr_cel_[A-Za-z]+__/g, (token) => {
    const helper = Object.values(CHART_LITERAL).find((h) => slot(h) === token);
    if (!helper) throw new Error(`no chart helper for ${token}`);
    return `{{ include \`${helper}\` . }}`;
  });
}

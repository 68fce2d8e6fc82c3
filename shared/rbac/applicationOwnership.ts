// Renders the chart's admission policies that bound the control plane's Argo CD writes
// (infra/chart/templates/application-ownership.yaml, SEC-3). RBAC must grant Applications
// cluster-wide (Argo CD's namespace may not exist when the chart installs) and cannot tell one
// Application from another, so without these an identity that writes Applications could write
// any Application in any AppProject, and so deploy anything anywhere through Argo CD, or delete a
// person's app-of-apps. Two policies, because each takes one parameter object:
// - ownership, against the cluster's one ClusterRuntime: an Application the control plane
//   creates, changes or deletes carries that runtime's UID, before and after; the one change of
//   owner allowed is the Adopt step's, from the UID the runtime's spec.adoption names;
// - project, against the configuration's admission keys: an Application it creates names the
//   configured AppProject, and a change keeps the project or moves it there.
// Without a runtime or a configuration these have nothing to compare with and let requests
// through; the finalizer policy (applicationAdmission.ts), which takes no parameter, still holds
// the control plane to Applications carrying a runtime's UID, and the resources finalizer to
// Remove steps. No control-plane identity may delete the runtime or the configuration.
// `npm run gen:rbac` writes it beside the RBAC; a unit test fails when the committed file is stale.
import {
  ADMISSION_KEYS,
  ANNOTATION,
  CONFIGURATION,
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

const CONFIGURED_PROJECT = `params.?data[?${q(ADMISSION_KEYS.argocdProject)}].orValue('')`;
export const IN_THE_PROJECT =
  `object.spec.project == ${CONFIGURED_PROJECT} || ` +
  '(oldObject != null && object.spec.project == oldObject.spec.project)';

// The fixed ends of what a refused writer reads; CEL puts the names in front.
const NOT_ITS_OWN =
  ` belongs to no runtime of this control plane (annotation ${ANNOTATION.runtimeUID} is not ` +
  `ClusterRuntime ${RUNTIME_NAME}'s UID, nor the one its spec.adoption names): ` +
  'the control plane changes and deletes only its own Applications';
const MUST_BE_ITS_OWN =
  ` must carry ClusterRuntime ${RUNTIME_NAME}'s UID in annotation ${ANNOTATION.runtimeUID} and label ` +
  `${LABEL.managedBy}=${MANAGED_BY_VALUE}: the control plane writes only Applications of its own runtime`;
const ONLY_THE_PROJECT =
  ` (argocd.project in ConfigMap ${CONFIGURATION.namespace}/${CONFIGURATION.name}): ` +
  'the control plane writes Applications only into the configured AppProject';

function policy(
  name: string,
  paramKind: { apiVersion: string; kind: string },
  operations: readonly string[],
  validations: readonly Record<string, string>[],
): Record<string, unknown> {
  return admissionPolicy(name, {
    paramKind,
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['argoproj.io'],
          apiVersions: ['v1alpha1'],
          resources: ['applications'],
          operations: [...operations],
        },
      ],
    },
    matchConditions: [{ name: 'from-the-control-plane', expression: fromTheControlPlane() }],
    validations,
  });
}

export function applicationOwnershipPolicy(): Record<string, unknown> {
  const app = `'Application ' + request.namespace + '/' + request.name`;
  return policy(
    SECURITY_ADMISSION.applicationOwnership,
    { apiVersion: GROUP_VERSION, kind: KINDS.clusterRuntime.kind },
    ['CREATE', 'UPDATE', 'DELETE'],
    [
      {
        expression: OWNED_BEFORE,
        messageExpression: `${app} + ${q(NOT_ITS_OWN)}`,
      },
      {
        expression: OWNED_AFTER,
        messageExpression: `${app} + ${q(MUST_BE_ITS_OWN)}`,
      },
    ],
  );
}

export function applicationProjectPolicy(): Record<string, unknown> {
  return policy(
    SECURITY_ADMISSION.applicationProject,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    ['CREATE', 'UPDATE'],
    [
      {
        expression: IN_THE_PROJECT,
        messageExpression:
          `'Application ' + request.namespace + '/' + request.name + ' names AppProject ' + object.spec.project + ` +
          `', not ' + ${CONFIGURED_PROJECT} + ${q(ONLY_THE_PROJECT)}`,
      },
    ],
  );
}

export function renderApplicationOwnership(): string {
  return renderAdmissionFile(
    [
      'Generated by `npm run gen:rbac` from shared/api/constants.ts by shared/rbac/applicationOwnership.ts;',
      "do not edit. The control plane's identities write only their runtime's own Applications, in the",
      `configured AppProject, in ${NAMESPACES.argocd} or wherever they are (SEC-3, docs/security.md).`,
    ],
    [
      applicationOwnershipPolicy(),
      // Both match every Application write, Argo CD's own included: Deny would stop Argo CD
      // cluster-wide before the first runtime and after an Orphan deletion (docs/security.md, SEC-8).
      admissionBinding(SECURITY_ADMISSION.applicationOwnership, { name: RUNTIME_NAME, whenMissing: 'Allow' }),
      applicationProjectPolicy(),
      admissionBinding(SECURITY_ADMISSION.applicationProject, {
        name: CONFIGURATION.name,
        namespace: CONFIGURATION.namespace,
        whenMissing: 'Allow',
      }),
    ],
  );
}

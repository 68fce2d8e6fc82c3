// Renders the chart's admission policy for owned Argo CD Applications
// (infra/chart/templates/application-finalizer.yaml). With Argo CD's resources finalizer on an
// Application, deleting it deletes the release's workloads too; the control plane may only put
// it there during an approved Remove step, next to the delete-rollout annotation (FIN-4). RBAC
// cannot look inside an object, so this policy holds the control plane's own writes to that.
// People and Argo CD are not matched: a person's edit is theirs, and Argo CD takes the finalizer
// off once it has deleted the resources.
// `npm run gen:rbac` writes it beside the RBAC; a unit test fails when the committed file is stale.
import {
  ANNOTATION,
  APPLICATION_ADMISSION,
  ARGOCD,
  IDENTITY_GROUP,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  ROLLOUT_NAME_PREFIX,
} from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { admissionBinding, admissionPolicy, renderAdmissionFile } from './admissionDocuments.ts';
import { STEP_TABLE, type StepRow } from '../steps/table.ts';

/** Every step's group starts with this; matching it too covers a step added later without a new chart. */
export const STEP_GROUP_PREFIX = IDENTITY_GROUP.step('');

/** The control plane's groups: the forwarder and one per step of the table. */
export function controlPlaneGroups(table: readonly StepRow[] = STEP_TABLE): string[] {
  return [IDENTITY_GROUP.forwarder, ...table.map((r) => IDENTITY_GROUP.step(r.name))];
}

/** The request comes from one of the control plane's identities. */
export function fromTheControlPlane(table: readonly StepRow[] = STEP_TABLE): string {
  const groups = controlPlaneGroups(table).map(celString).join(', ');
  const prefix = celString(STEP_GROUP_PREFIX);
  return `request.userInfo.?groups.orValue([]).exists(g, g in [${groups}] || g.startsWith(${prefix}))`;
}

const DELETE_ROLLOUT = `object.metadata.?annotations[?${celString(ANNOTATION.deleteRollout)}].orValue('')`;

/**
 * The Application as sent either lacks the finalizer or carries, beside it, the delete-rollout
 * annotation naming a rollout.
 */
export const FINALIZER_ONLY_WHILE_REMOVING =
  `!object.metadata.?finalizers.orValue([]).exists(f, f == ${celString(ARGOCD.resourcesFinalizer)}) || ` +
  `[${Object.values(ROLLOUT_NAME_PREFIX).map(celString).join(', ')}].exists(p, ${DELETE_ROLLOUT}.startsWith(p))`;

/** What a refused writer reads, for an Application named `name` in `namespace`. */
export function finalizerRefusal(name: string, namespace: string = NAMESPACES.argocd): string {
  const prefixes = Object.values(ROLLOUT_NAME_PREFIX).join('…, ');
  return (
    `Application ${namespace}/${name} carries Argo CD's resources finalizer (${ARGOCD.resourcesFinalizer}) ` +
    `without annotation ${ANNOTATION.deleteRollout} naming a rollout (${prefixes}…): ` +
    'the control plane sets that finalizer only during an approved Remove step, together with the annotation, ' +
    'and writes no Application that carries it otherwise. ' +
    `If a person added it, remove it by hand: kubectl -n ${namespace} patch application ${name} ` +
    `--type merge -p '{"metadata":{"finalizers":null}}'`
  );
}

/**
 * `obj` carries a runtime's UID and the managed-by label. This policy takes no parameter, so it
 * holds even when no ClusterRuntime exists (the ownership policy, which checks the UID is this
 * runtime's, then has nothing to compare with and lets the request through).
 */
export function ownedBySomeRuntime(obj: string): string {
  return `${runtimeUidOf(obj)} != '' && ${managedByTheControlPlane(obj)}`;
}

/** The runtime UID annotation of `obj` (`object` or `oldObject`), or '' when it has none. */
export function runtimeUidOf(obj: string): string {
  return `${obj}.metadata.?annotations[?${celString(ANNOTATION.runtimeUID)}].orValue('')`;
}

/** `obj` carries the managed-by label the control plane writes. */
export function managedByTheControlPlane(obj: string): string {
  return `${obj}.metadata.?labels[?${celString(LABEL.managedBy)}].orValue('') == ${celString(MANAGED_BY_VALUE)}`;
}

function unownedExpression(): string {
  const text =
    ` is not one the control plane wrote (annotation ${ANNOTATION.runtimeUID} and label ` +
    `${LABEL.managedBy}=${MANAGED_BY_VALUE}, before and after the change): ` +
    'the control plane creates, changes and deletes only its own Applications';
  return `'Application ' + request.namespace + '/' + request.name + ${celString(text)}`;
}

// The message names the Application, so CEL builds it from the same text around the two names.
const NAME_MARK = '{name}';
const NAMESPACE_MARK = '{namespace}';

function refusalExpression(): string {
  const cel = (part: string): string =>
    part === NAME_MARK
      ? 'object.metadata.name'
      : part === NAMESPACE_MARK
        ? "object.metadata.?namespace.orValue('')"
        : celString(part);
  return finalizerRefusal(NAME_MARK, NAMESPACE_MARK)
    .split(/(\{name\}|\{namespace\})/)
    .filter((p) => p !== '')
    .map(cel)
    .join(' + ');
}

export function applicationAdmissionPolicy(table: readonly StepRow[] = STEP_TABLE): Record<string, unknown> {
  // Failing closed matters here: a finalizer slipped through would delete a release's workloads with its Application.
  return admissionPolicy(APPLICATION_ADMISSION.name, {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: ['argoproj.io'],
          apiVersions: ['v1alpha1'],
          operations: ['CREATE', 'UPDATE', 'DELETE'],
          resources: ['applications'],
        },
      ],
    },
    matchConditions: [{ name: 'from-the-control-plane', expression: fromTheControlPlane(table) }],
    validations: [
      {
        expression: `request.operation == 'DELETE' || ${FINALIZER_ONLY_WHILE_REMOVING}`,
        messageExpression: refusalExpression(),
      },
      {
        expression:
          `(request.operation == 'CREATE' || ${ownedBySomeRuntime('oldObject')}) && ` +
          `(request.operation == 'DELETE' || ${ownedBySomeRuntime('object')})`,
        messageExpression: unownedExpression(),
      },
    ],
  });
}

export function renderApplicationAdmission(): string {
  return renderAdmissionFile(
    [
      'Generated by `npm run gen:rbac` from the step table and shared/api/constants.ts by',
      "shared/rbac/applicationAdmission.ts; do not edit. The control plane's identities may not write",
      "an Argo CD Application that carries Argo CD's resources finalizer without the delete-rollout",
      "annotation naming a rollout (FIN-4), nor create, change or delete one that carries no runtime's",
      'UID and managed-by label (SEC-3); people and Argo CD are not matched.',
    ],
    [applicationAdmissionPolicy(), admissionBinding(APPLICATION_ADMISSION.name)],
  );
}

// Renders the chart's access control for approving rollouts (infra/chart/templates/rollout-approval.yaml):
// the approver ClusterRole, and an admission policy for what RBAC cannot say. RBAC decides who
// may patch a rollout; the policy makes any change to spec.approval name the requesting user as
// the API server sees it, need the custom approve verb, land on a rollout that has not ended
// and has no approval yet (or only one the control plane refused), and leave the rest of the spec
// as the control plane wrote it. It holds for every requester, the control plane's own identities
// included (SEC-7): they create rollouts without a person's fields and never set one afterwards.
// Acknowledging a manual release's recorded steps is held to the same people and the same
// identity rule, and an acknowledgement once given is never rewritten or taken back; so are a
// revocation and a retry request (requestAdmission.ts), each set once.
// `npm run gen:rbac` writes it; a unit test fails when the committed file is stale.
import { API_GROUP, API_VERSION, APPROVAL, KINDS } from '../api/constants.ts';
import { admissionBinding, admissionPolicy, renderAdmissionFile } from './admissionDocuments.ts';
import { RuntimeRolloutSpecSchema } from '../api/runtimeRollout.ts';
import { fromTheControlPlane } from './applicationAdmission.ts';
import { anyDiffers, asThemselves, byAnApprover, onChange, sentAndStored, type Check } from './personChecks.ts';
import {
  disruptionValidations,
  requestVariables,
  retryValidations,
  revocationValidations,
} from './requestAdmission.ts';

const RBAC_VERSION = 'rbac.authorization.k8s.io/v1';
const PLURAL = KINDS.runtimeRollout.plural;

/** The spec fields a person writes; the control plane sets every other one. */
export const PERSON_FIELDS = ['approval', 'acknowledgements', 'revocation', 'retry', 'disruption'] as const;

function controlPlaneFields(): string[] {
  const shape = (RuntimeRolloutSpecSchema as unknown as { def: { out: { shape: Record<string, unknown> } } }).def.out
    .shape;
  return Object.keys(shape)
    .filter((k) => !(PERSON_FIELDS as readonly string[]).includes(k))
    .sort();
}

const variables = [
  ...sentAndStored('By', 'approval.?approvedBy', "''"),
  ...sentAndStored('At', 'approval.?approvedAt', "''"),
  { name: 'changes', expression: anyDiffers(['By', 'At']) },
  { name: 'outcome', expression: "object.?status.?outcome.orValue('')" },
  // The status as stored (a write of the rollout itself never changes it): the verdict on the stored approval.
  {
    name: 'refusedAsIs',
    expression:
      "object.?status.?approval.?state.orValue('') == 'Refused' && " +
      "object.status.approval.?approvedBy.orValue('') == variables.oldBy && " +
      "object.status.approval.?approvedAt.orValue('') == variables.oldAt",
  },
  ...sentAndStored('Acks', 'acknowledgements', '[]'),
  { name: 'acksChange', expression: anyDiffers(['Acks']) },
  ...requestVariables(),
];

/** Only a rollout that has not ended takes the change; an ended one leaves nothing to `verb`. */
function beforeTheEnd(changes: string, verb: string): Check {
  const ended = "'rollout ' + object.metadata.name + ' has ended ' + variables.outcome";
  return onChange(changes, "variables.outcome == ''", {
    messageExpression: `${ended} + '; there is nothing to ${verb}'`,
  });
}

/** Checks on spec.acknowledgements. */
export function acknowledgementValidations(): Check[] {
  const ack = 'spec.acknowledgements';
  return [
    onChange('acksChange', 'variables.oldAcks.all(o, variables.newAcks.exists(n, n == o))', {
      message:
        `${ack} only grows: an acknowledgement once given stays as it was; ` +
        'add your own entry and keep every earlier one unchanged',
    }),
    beforeTheEnd('acksChange', 'acknowledge'),
    byAnApprover('acksChange', 'acknowledge releases'),
    asThemselves(
      'acksChange',
      `${ack}[].acknowledgedBy`,
      'variables.newAcks.all(n, variables.oldAcks.exists(o, o == n) || n.acknowledgedBy == request.userInfo.username)',
    ),
  ];
}

const PERSON_CHANGES = ['changes', 'acksChange', 'revocationChanges', 'retryChanges', 'disruptionChanges'];
const PERSON_FIELD_LIST = 'spec.approval, spec.acknowledgements, spec.revocation, spec.retry or spec.disruption';

/** A rollout is created without a person's fields, and no identity of the control plane sets one later (SEC-7). */
export function personOnlyValidations(): Check[] {
  const absent = PERSON_FIELDS.map((f) => `!object.?spec.?${f}.hasValue()`).join(' && ');
  const changed = PERSON_CHANGES.map((c) => `variables.${c}`).join(' || ');
  return [
    {
      expression: `oldObject != null || (${absent})`,
      message:
        `a rollout is created without ${PERSON_FIELD_LIST}: a person sets them afterwards, ` +
        'as themselves (kubectl aicr approve, acknowledge, revoke, retry, approve --disrupt)',
      reason: 'Forbidden',
    },
    {
      expression: `!(${changed}) || !(${fromTheControlPlane()})`,
      messageExpression:
        "request.userInfo.username + ' is an identity of the control plane: only a person writes " +
        `${PERSON_FIELD_LIST} of a rollout'`,
      reason: 'Forbidden',
    },
  ];
}

function validations(): Check[] {
  const sameSpec = controlPlaneFields()
    .map((k) => `object.spec.?${k} == oldObject.spec.?${k}`)
    .join(' && ');
  return [
    {
      expression: `oldObject == null || (${sameSpec})`,
      message:
        "only the control plane writes a rollout's spec; a person changes spec.approval, adds to " +
        'spec.acknowledgements and sets spec.revocation, spec.retry or spec.disruption once, nothing else ' +
        '(kubectl aicr approve, acknowledge, revoke, retry, approve --disrupt)',
      reason: 'Forbidden',
    },
    ...personOnlyValidations(),
    beforeTheEnd('changes', 'approve'),
    onChange('changes', "variables.oldBy == '' || variables.refusedAsIs", {
      messageExpression:
        "'rollout ' + object.metadata.name + ' is already approved by ' + variables.oldBy + ' at ' + variables.oldAt",
    }),
    byAnApprover('changes', 'approve rollouts'),
    asThemselves('changes', 'spec.approval.approvedBy', 'variables.newBy == request.userInfo.username'),
    ...acknowledgementValidations(),
    ...revocationValidations(),
    ...retryValidations(),
    ...disruptionValidations(),
  ];
}

export function approvalAdmissionPolicy(): Record<string, unknown> {
  // Failing closed matters here: a broken policy must never let an approval through unchecked.
  return admissionPolicy(APPROVAL.admission, {
    matchConstraints: {
      resourceRules: [
        { apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: [PLURAL] },
      ],
    },
    // Every requester is checked, the rollout step too: it writes only what it creates and the status.
    matchConditions: [],
    variables,
    validations: validations(),
  });
}

/**
 * Who may approve: read the runtime, its rollouts and a manual release's recorded steps, and
 * record an approval or an acknowledgement.
 */
export function approverRole(): Record<string, unknown> {
  return {
    apiVersion: RBAC_VERSION,
    kind: 'ClusterRole',
    metadata: { name: APPROVAL.approverRole },
    rules: [
      { apiGroups: [API_GROUP], resources: [KINDS.clusterRuntime.plural, PLURAL], verbs: ['get', 'list', 'watch'] },
      // patch writes the fields a person sets (PERSON_FIELDS); approve is the verb the admission
      // policy asks RBAC about.
      { apiGroups: [API_GROUP], resources: [PLURAL], verbs: ['patch', APPROVAL.verb] },
      // A manual release's recorded steps live on its owned Application; whoever acknowledges them
      // reads them there.
      { apiGroups: ['argoproj.io'], resources: ['applications'], verbs: ['get'] },
    ],
  };
}

export function renderApprovalAdmission(): string {
  return renderAdmissionFile(
    [
      'Generated by `npm run gen:rbac` by shared/rbac/approvalAdmission.ts; do not edit. Approving a',
      `rollout needs ClusterRole ${APPROVAL.approverRole} (bind it to your approvers); the policy holds`,
      'every recorded approval and acknowledgement to the identity of the user who sent it.',
    ],
    [approverRole(), approvalAdmissionPolicy(), admissionBinding(APPROVAL.admission)],
  );
}

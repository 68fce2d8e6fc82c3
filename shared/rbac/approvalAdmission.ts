// Renders the chart's access control for approving rollouts (infra/chart/templates/rollout-approval.yaml):
// the approver ClusterRole, and an admission policy for what RBAC cannot say. RBAC decides who
// may patch a rollout; the policy makes any change to spec.approval name the requesting user as
// the API server sees it, need the custom approve verb, land on a rollout that has not ended
// and has no approval yet, and leave the rest of the spec as the control plane wrote it.
// Acknowledging a manual release's recorded steps is held to the same people and the same
// identity rule, and an acknowledgement once given is never rewritten or taken back; so are a
// revocation and a retry request (requestAdmission.ts), each set once.
// `npm run gen:rbac` writes it; a unit test fails when the committed file is stale.
import { API_GROUP, API_VERSION, APPROVAL, IDENTITY_GROUP, KINDS } from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { admissionBinding, admissionPolicy, renderAdmissionFile } from './admissionDocuments.ts';
import { RuntimeRolloutSpecSchema } from '../api/runtimeRollout.ts';
import {
  disruptionValidations,
  requestVariables,
  retryValidations,
  revocationValidations,
} from './requestAdmission.ts';

const RBAC_VERSION = 'rbac.authorization.k8s.io/v1';
const PLURAL = KINDS.runtimeRollout.plural;
const ROLLOUT_GROUP = celString(IDENTITY_GROUP.step('rollout'));

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
  { name: 'newBy', expression: "object.?spec.?approval.?approvedBy.orValue('')" },
  { name: 'oldBy', expression: "oldObject == null ? '' : oldObject.?spec.?approval.?approvedBy.orValue('')" },
  { name: 'newAt', expression: "object.?spec.?approval.?approvedAt.orValue('')" },
  { name: 'oldAt', expression: "oldObject == null ? '' : oldObject.?spec.?approval.?approvedAt.orValue('')" },
  { name: 'changes', expression: 'variables.newBy != variables.oldBy || variables.newAt != variables.oldAt' },
  { name: 'outcome', expression: "object.?status.?outcome.orValue('')" },
  { name: 'newAcks', expression: 'object.?spec.?acknowledgements.orValue([])' },
  { name: 'oldAcks', expression: 'oldObject == null ? [] : oldObject.?spec.?acknowledgements.orValue([])' },
  { name: 'acksChange', expression: 'variables.newAcks != variables.oldAcks' },
  ...requestVariables(),
];

const APPROVER_HINT = `bind ClusterRole ${APPROVAL.approverRole} to whoever may approve`;

/** RBAC grants the requester the approve verb on this rollout: the same question for approving and acknowledging. */
const AUTHORIZED = `authorizer.group(${celString(API_GROUP)}).resource(${celString(PLURAL)}).name(object.metadata.name).check(${celString(APPROVAL.verb)}).allowed()`;

/** Checks on spec.acknowledgements; each holds trivially when a write leaves the list as it was. */
export function acknowledgementValidations(): Record<string, string>[] {
  const ack = 'spec.acknowledgements';
  return [
    {
      expression: '!variables.acksChange || variables.oldAcks.all(o, variables.newAcks.exists(n, n == o))',
      message: `${ack} only grows: an acknowledgement once given stays as it was; add your own entry and keep every earlier one unchanged`,
      reason: 'Forbidden',
    },
    {
      expression: "!variables.acksChange || variables.outcome == ''",
      messageExpression:
        "'rollout ' + object.metadata.name + ' has ended ' + variables.outcome + '; there is nothing to acknowledge'",
      reason: 'Forbidden',
    },
    {
      expression: `!variables.acksChange || ${AUTHORIZED}`,
      messageExpression: `request.userInfo.username + ' is not allowed to acknowledge releases: RBAC grants no ${APPROVAL.verb} verb on ${PLURAL}; ${APPROVER_HINT}'`,
      reason: 'Forbidden',
    },
    {
      expression:
        '!variables.acksChange || variables.newAcks.all(n, variables.oldAcks.exists(o, o == n) || n.acknowledgedBy == request.userInfo.username)',
      messageExpression: `'${ack}[].acknowledgedBy must be your own identity as the API server sees it (' + request.userInfo.username + ')'`,
      reason: 'Forbidden',
    },
  ];
}

function validations(): Record<string, string>[] {
  const sameSpec = controlPlaneFields()
    .map((k) => `object.spec.?${k} == oldObject.spec.?${k}`)
    .join(' && ');
  return [
    {
      expression: `oldObject == null || (${sameSpec})`,
      message:
        "only the control plane writes a rollout's spec; a person changes spec.approval, adds to spec.acknowledgements and sets spec.revocation, spec.retry or spec.disruption once, nothing else (kubectl aicr approve, acknowledge, revoke, retry, approve --disrupt)",
      reason: 'Forbidden',
    },
    {
      expression: "!variables.changes || variables.outcome == ''",
      messageExpression:
        "'rollout ' + object.metadata.name + ' has ended ' + variables.outcome + '; there is nothing to approve'",
      reason: 'Forbidden',
    },
    {
      expression: "!variables.changes || variables.oldBy == ''",
      messageExpression:
        "'rollout ' + object.metadata.name + ' is already approved by ' + variables.oldBy + ' at ' + variables.oldAt",
      reason: 'Forbidden',
    },
    {
      expression: `!variables.changes || ${AUTHORIZED}`,
      messageExpression: `request.userInfo.username + ' is not allowed to approve rollouts: RBAC grants no ${APPROVAL.verb} verb on ${PLURAL}; ${APPROVER_HINT}'`,
      reason: 'Forbidden',
    },
    {
      expression: '!variables.changes || variables.newBy == request.userInfo.username',
      messageExpression:
        "'spec.approval.approvedBy must be your own identity as the API server sees it (' + request.userInfo.username + ')'",
      reason: 'Forbidden',
    },
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
    // The rollout step writes rollouts (and clears an approval it refused); everyone else is checked.
    matchConditions: [
      {
        name: 'not-the-rollout-step',
        expression: `!request.userInfo.?groups.orValue([]).exists(g, g == ${ROLLOUT_GROUP})`,
      },
    ],
    variables,
    validations: validations(),
  });
}

/** Who may approve: read the runtime, its rollouts and a manual release's recorded steps, and record an approval or an acknowledgement. */
export function approverRole(): Record<string, unknown> {
  return {
    apiVersion: RBAC_VERSION,
    kind: 'ClusterRole',
    metadata: { name: APPROVAL.approverRole },
    rules: [
      { apiGroups: [API_GROUP], resources: [KINDS.clusterRuntime.plural, PLURAL], verbs: ['get', 'list', 'watch'] },
      // patch writes spec.approval, spec.acknowledgements, spec.revocation and spec.retry; approve is the verb the admission policy asks RBAC about.
      { apiGroups: [API_GROUP], resources: [PLURAL], verbs: ['patch', APPROVAL.verb] },
      // A manual release's recorded steps live on its owned Application; whoever acknowledges them reads them there.
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

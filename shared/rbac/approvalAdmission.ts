// Renders the chart's access control for approving rollouts (infra/chart/templates/rollout-approval.yaml):
// the approver ClusterRole, and an admission policy for what RBAC cannot say. RBAC decides who
// may patch a rollout; the policy makes any change to spec.approval name the requesting user as
// the API server sees it, need the custom approve verb, land on a rollout that has not ended
// and has no approval yet, and leave the rest of the spec as the control plane wrote it.
// `npm run gen:rbac` writes it; a unit test fails when the committed file is stale.
import { stringify } from 'yaml';
import { API_GROUP, API_VERSION, APPROVAL, IDENTITY_GROUP, KINDS } from '../api/constants.ts';
import { celString } from '../api/cel.ts';
import { RuntimeRolloutSpecSchema } from '../api/runtimeRollout.ts';

const ADMISSION_VERSION = 'admissionregistration.k8s.io/v1';
const RBAC_VERSION = 'rbac.authorization.k8s.io/v1';
const PLURAL = KINDS.runtimeRollout.plural;
const ROLLOUT_GROUP = celString(IDENTITY_GROUP.step('rollout'));

/** Spec fields besides the approval: only the control plane sets them. */
function controlPlaneFields(): string[] {
  const shape = (RuntimeRolloutSpecSchema as unknown as { def: { out: { shape: Record<string, unknown> } } }).def.out.shape;
  return Object.keys(shape).filter((k) => k !== 'approval').sort();
}

const variables = [
  { name: 'newBy', expression: "object.?spec.?approval.?approvedBy.orValue('')" },
  { name: 'oldBy', expression: "oldObject == null ? '' : oldObject.?spec.?approval.?approvedBy.orValue('')" },
  { name: 'newAt', expression: "object.?spec.?approval.?approvedAt.orValue('')" },
  { name: 'oldAt', expression: "oldObject == null ? '' : oldObject.?spec.?approval.?approvedAt.orValue('')" },
  { name: 'changes', expression: 'variables.newBy != variables.oldBy || variables.newAt != variables.oldAt' },
  { name: 'outcome', expression: "object.?status.?outcome.orValue('')" },
];

const APPROVER_HINT = `bind ClusterRole ${APPROVAL.approverRole} to whoever may approve`;

function validations(): Record<string, unknown>[] {
  const sameSpec = controlPlaneFields().map((k) => `object.spec.?${k} == oldObject.spec.?${k}`).join(' && ');
  const authorized = `authorizer.group(${celString(API_GROUP)}).resource(${celString(PLURAL)}).name(object.metadata.name).check(${celString(APPROVAL.verb)}).allowed()`;
  return [
    { expression: `oldObject == null || (${sameSpec})`, message: 'only the control plane writes a rollout\'s spec; an approver changes spec.approval alone', reason: 'Forbidden' },
    { expression: "!variables.changes || variables.outcome == ''", messageExpression: "'rollout ' + object.metadata.name + ' has ended ' + variables.outcome + '; there is nothing to approve'", reason: 'Forbidden' },
    { expression: "!variables.changes || variables.oldBy == ''", messageExpression: "'rollout ' + object.metadata.name + ' is already approved by ' + variables.oldBy + ' at ' + variables.oldAt", reason: 'Forbidden' },
    { expression: `!variables.changes || ${authorized}`, messageExpression: `request.userInfo.username + ' is not allowed to approve rollouts: RBAC grants no ${APPROVAL.verb} verb on ${PLURAL}; ${APPROVER_HINT}'`, reason: 'Forbidden' },
    { expression: '!variables.changes || variables.newBy == request.userInfo.username', messageExpression: "'spec.approval.approvedBy must be your own identity as the API server sees it (' + request.userInfo.username + ')'", reason: 'Forbidden' },
  ];
}

export function approvalAdmissionPolicy(): Record<string, unknown> {
  return {
    apiVersion: ADMISSION_VERSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: APPROVAL.admission },
    spec: {
      // A broken policy must refuse, never let an approval through unchecked.
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: [PLURAL] }] },
      // The rollout step writes rollouts (and clears an approval it refused); everyone else is checked.
      matchConditions: [{ name: 'not-the-rollout-step', expression: `!request.userInfo.?groups.orValue([]).exists(g, g == ${ROLLOUT_GROUP})` }],
      variables,
      validations: validations(),
    },
  };
}

function binding(): Record<string, unknown> {
  return { apiVersion: ADMISSION_VERSION, kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: APPROVAL.admission }, spec: { policyName: APPROVAL.admission, validationActions: ['Deny'] } };
}

/** Who may approve: read the runtime and its rollouts, and record an approval. */
export function approverRole(): Record<string, unknown> {
  return {
    apiVersion: RBAC_VERSION,
    kind: 'ClusterRole',
    metadata: { name: APPROVAL.approverRole },
    rules: [
      { apiGroups: [API_GROUP], resources: [KINDS.clusterRuntime.plural, PLURAL], verbs: ['get', 'list', 'watch'] },
      // patch writes spec.approval; approve is the verb the admission policy asks RBAC about.
      { apiGroups: [API_GROUP], resources: [PLURAL], verbs: ['patch', APPROVAL.verb] },
    ],
  };
}

export function renderApprovalAdmission(): string {
  const header = [
    '# Generated by `npm run gen:rbac` by shared/rbac/approvalAdmission.ts; do not edit. Approving a',
    `# rollout needs ClusterRole ${APPROVAL.approverRole} (bind it to your approvers); the policy holds`,
    '# every recorded approval to the identity of the user who sent it.',
  ].join('\n');
  return `${header}\n${[approverRole(), approvalAdmissionPolicy(), binding()].map((d) => stringify(d, { lineWidth: 0 })).join('---\n')}`;
}

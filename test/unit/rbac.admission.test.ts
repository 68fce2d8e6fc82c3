// The admission policies' shape, checked without a cluster (test/integration/rollouts.test.ts and
// test/integration/fin4.applicationFinalizer.test.ts run them on the API server): acknowledgements
// are a person's field beside the approval, held to the same people and their own identity, and
// only ever added; the control plane's identities, taken from the step table, may not write an
// Application with Argo CD's resources finalizer but without the delete-rollout annotation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, APPLICATION_ADMISSION, APPROVAL, ARGOCD, IDENTITY_GROUP } from '../../shared/api/constants.ts';
import {
  FINALIZER_ONLY_WHILE_REMOVING,
  applicationAdmissionPolicy,
  controlPlaneGroups,
  finalizerRefusal,
  fromTheControlPlane,
} from '../../shared/rbac/applicationAdmission.ts';
import {
  PERSON_FIELDS,
  acknowledgementValidations,
  approvalAdmissionPolicy,
} from '../../shared/rbac/approvalAdmission.ts';
import {
  RETRYABLE_OUTCOMES,
  disruptionValidations,
  retryValidations,
  revocationValidations,
} from '../../shared/rbac/requestAdmission.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';

interface Validation {
  readonly expression: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason: string;
}
const specOf = (policy: Record<string, unknown>): Record<string, unknown> => policy['spec'] as Record<string, unknown>;

test("APR-3 a person writes spec.approval and spec.acknowledgements; the rest of the spec stays the control plane's", () => {
  assert.deepEqual([...PERSON_FIELDS], ['approval', 'acknowledgements', 'revocation', 'retry', 'disruption']);
  const validations = specOf(approvalAdmissionPolicy())['validations'] as Validation[];
  const sameSpec = validations[0]?.expression ?? '';
  assert.match(sameSpec, /object\.spec\.\?toPlan == oldObject\.spec\.\?toPlan/);
  assert.doesNotMatch(sameSpec, /acknowledgements|approval|revocation|retry|disruption/);
  assert.match(
    validations[0]?.message ?? '',
    /only the control plane writes a rollout's spec; a person changes spec\.approval, adds to spec\.acknowledgements and sets spec\.revocation, spec\.retry or spec\.disruption once/,
  );
});

test('APR-3 a change to spec.acknowledgements only adds, on a rollout that has not ended, by someone RBAC lets approve, as themselves', () => {
  const acks = acknowledgementValidations();
  const all = specOf(approvalAdmissionPolicy())['validations'] as Validation[];
  for (const v of acks) {
    assert.ok(
      all.some((w) => w.expression === v['expression']),
      'each check is in the policy',
    );
    assert.match(
      String(v['expression']),
      /^!variables\.acksChange \|\| /,
      'writes that leave the list alone are not checked',
    );
    assert.equal(v['reason'], 'Forbidden');
  }
  const text = acks.map((v) => `${String(v['expression'])} ${String(v['message'] ?? v['messageExpression'])}`);
  assert.match(
    text[0] ?? '',
    /oldAcks\.all\(o, variables\.newAcks\.exists\(n, n == o\)\).*spec\.acknowledgements only grows/,
  );
  assert.match(text[1] ?? '', /variables\.outcome == ''.*there is nothing to acknowledge/);
  assert.match(
    text[2] ?? '',
    new RegExp(
      `check\\('${APPROVAL.verb}'\\)\\.allowed\\(\\).*not allowed to acknowledge releases: RBAC grants no approve verb on runtimerollouts; bind ClusterRole ${APPROVAL.approverRole}`,
    ),
  );
  assert.match(
    text[3] ?? '',
    /n\.acknowledgedBy == request\.userInfo\.username.*spec\.acknowledgements\[\]\.acknowledgedBy must be your own identity/,
  );
  const variables = specOf(approvalAdmissionPolicy())['variables'] as { name: string }[];
  assert.deepEqual(
    variables.filter((v) => /[Aa]cks/.test(v.name)).map((v) => v.name),
    ['newAcks', 'oldAcks', 'acksChange'],
  );
});

/** Each check as `expression message`, after checking it is in the policy and skipped by writes that leave its field alone. */
function inPolicy(checks: readonly Record<string, unknown>[], changes: string): string[] {
  const all = specOf(approvalAdmissionPolicy())['validations'] as Validation[];
  for (const v of checks) {
    assert.ok(
      all.some((w) => w.expression === v['expression']),
      'each check is in the policy',
    );
    assert.ok(
      String(v['expression']).startsWith(`!variables.${changes} || `),
      'writes that leave the field alone are not checked',
    );
    assert.equal(v['reason'], 'Forbidden');
  }
  return checks.map((v) => `${String(v['expression'])} ${String(v['message'] ?? v['messageExpression'])}`);
}

test('ROL-6 spec.revocation is set once, on a rollout that has not ended, by someone RBAC lets approve, as themselves', () => {
  const text = inPolicy(revocationValidations(), 'revocationChanges');
  assert.equal(text.length, 4);
  assert.match(
    text[0] ?? '',
    /!variables\.oldRevocation\.hasValue\(\).*spec\.revocation is set once: .* was revoked by .*neither changed nor taken back\. Retry it with kubectl aicr retry/,
  );
  assert.match(
    text[1] ?? '',
    /outcome\.orValue\(''\) == ''.*spec\.revocation: rollout .* has ended .*there is nothing to revoke/,
  );
  assert.match(
    text[2] ?? '',
    new RegExp(
      `check\\('${APPROVAL.verb}'\\)\\.allowed\\(\\).*not allowed to revoke rollouts: RBAC grants no approve verb on runtimerollouts; bind ClusterRole ${APPROVAL.approverRole}`,
    ),
  );
  assert.match(
    text[3] ?? '',
    /object\.\?spec\.\?revocation\.\?revokedBy\.orValue\(''\) == request\.userInfo\.username.*spec\.revocation\.revokedBy must be your own identity/,
  );
});

test('ROL-6 spec.retry is set once, on a rollout that has not ended or ended Failed, Expired or Revoked, by someone RBAC lets approve, as themselves', () => {
  const text = inPolicy(retryValidations(), 'retryChanges');
  assert.deepEqual([...RETRYABLE_OUTCOMES], ['Failed', 'Expired', 'Revoked']);
  assert.match(
    text[0] ?? '',
    /!variables\.oldRetry\.hasValue\(\).*spec\.retry is set once: a retry of rollout .* was already requested by/,
  );
  assert.match(
    text[1] ?? '',
    /in \['', 'Failed', 'Expired', 'Revoked'\].*which is not retried; only a rollout that has not ended or ended Failed, Expired, Revoked can be\. Change the target plan/,
  );
  assert.doesNotMatch(text[1] ?? '', /'Succeeded'|'Superseded'/);
  assert.match(text[2] ?? '', /not allowed to retry rollouts: RBAC grants no approve verb on runtimerollouts/);
  assert.match(
    text[3] ?? '',
    /object\.\?spec\.\?retry\.\?requestedBy\.orValue\(''\) == request\.userInfo\.username.*spec\.retry\.requestedBy must be your own identity/,
  );
  const variables = (specOf(approvalAdmissionPolicy())['variables'] as { name: string }[]).map((v) => v.name);
  for (const name of ['newRevocation', 'oldRevocation', 'revocationChanges', 'newRetry', 'oldRetry', 'retryChanges'])
    assert.ok(variables.includes(name), name);
});

test('GPU-2 spec.disruption is set once, on a rollout that has not ended, by someone RBAC lets approve, as themselves', () => {
  const text = inPolicy(disruptionValidations(), 'disruptionChanges');
  assert.equal(text.length, 4);
  assert.match(
    text[0] ?? '',
    /!variables\.oldDisruption\.hasValue\(\).*spec\.disruption is set once: .* let rollout .* disrupt running GPU work at .*neither changed nor taken back/,
  );
  assert.match(
    text[1] ?? '',
    /outcome\.orValue\(''\) == ''.*spec\.disruption: rollout .* has ended .*nothing left to disrupt/,
  );
  assert.match(
    text[2] ?? '',
    /not allowed to let rollouts disrupt running GPU work: RBAC grants no approve verb on runtimerollouts/,
  );
  assert.match(
    text[3] ?? '',
    /object\.\?spec\.\?disruption\.\?approvedBy\.orValue\(''\) == request\.userInfo\.username.*spec\.disruption\.approvedBy must be your own identity/,
  );
  const variables = (specOf(approvalAdmissionPolicy())['variables'] as { name: string }[]).map((v) => v.name);
  for (const name of ['newDisruption', 'oldDisruption', 'disruptionChanges']) assert.ok(variables.includes(name), name);
});

test("FIN-4 the application policy matches the control plane's writes of Applications only, and fails closed", () => {
  const spec = specOf(applicationAdmissionPolicy());
  assert.equal((applicationAdmissionPolicy()['metadata'] as { name: string }).name, APPLICATION_ADMISSION.name);
  assert.equal(spec['failurePolicy'], 'Fail');
  assert.deepEqual(spec['matchConstraints'], {
    resourceRules: [
      {
        apiGroups: ['argoproj.io'],
        apiVersions: ['v1alpha1'],
        operations: ['CREATE', 'UPDATE', 'DELETE'],
        resources: ['applications'],
      },
    ],
  });
  assert.deepEqual(spec['matchConditions'], [{ name: 'from-the-control-plane', expression: fromTheControlPlane() }]);
  assert.deepEqual(controlPlaneGroups(), [
    IDENTITY_GROUP.forwarder,
    ...STEP_TABLE.map((r) => IDENTITY_GROUP.step(r.name)),
  ]);
  for (const g of controlPlaneGroups()) assert.ok(fromTheControlPlane().includes(`'${g}'`), `${g} is matched`);
  // A step added to the table is matched by the chart rendered from it, and by the prefix before that.
  const later = [...STEP_TABLE, { ...(STEP_TABLE[0] as StepRow), name: 'validate' }];
  assert.ok(fromTheControlPlane(later).includes(`'${IDENTITY_GROUP.step('validate')}'`));
  assert.match(fromTheControlPlane(), /g\.startsWith\('aicr:step:'\)/);
});

test('FIN-4 the finalizer without the delete-rollout annotation is refused with the by-hand fix', () => {
  const [v, owned, ...more] = specOf(applicationAdmissionPolicy())['validations'] as Validation[];
  assert.equal(more.length, 0);
  // A delete sends no object: the finalizer rule holds writes only, and the second rule holds ownership (SEC-3).
  assert.equal(v?.expression, `request.operation == 'DELETE' || ${FINALIZER_ONLY_WHILE_REMOVING}`);
  assert.match(owned?.expression ?? '', /oldObject.*object/);
  assert.ok(
    FINALIZER_ONLY_WHILE_REMOVING.includes(`'${ARGOCD.resourcesFinalizer}'`) &&
      FINALIZER_ONLY_WHILE_REMOVING.includes(`'${ANNOTATION.deleteRollout}'`),
  );
  assert.equal(v?.reason, 'Forbidden');
  assert.match(v?.messageExpression ?? '', /object\.metadata\.name/);
  const message = finalizerRefusal('gpu-operator');
  assert.match(message, /only during an approved Remove step, together with the annotation/);
  assert.ok(
    message.endsWith(
      `kubectl -n argocd patch application gpu-operator --type merge -p '{"metadata":{"finalizers":null}}'`,
    ),
  );
});

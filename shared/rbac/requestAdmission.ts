// The admission checks on a person's requests to end a rollout, to run it again or to let it
// disrupt running GPU work: spec.revocation, spec.retry and spec.disruption. Each is set once, by
// someone RBAC lets approve, naming themselves, and only where the control plane can act on it: a
// revocation or a disruption while the rollout has not ended, a retry while it has not ended or
// after it ended Failed, Expired or Revoked. Each check holds trivially when a write leaves the
// field as it was, so approving and acknowledging are not held to these.
import { API_GROUP, APPROVAL, KINDS } from '../api/constants.ts';
import { celString } from '../api/cel.ts';

const PLURAL = KINDS.runtimeRollout.plural;
const APPROVER_HINT = `bind ClusterRole ${APPROVAL.approverRole} to whoever may approve`;

/** Outcomes after which a retry makes a new rollout; a success or a superseded rollout has nothing to retry. */
export const RETRYABLE_OUTCOMES = ['Failed', 'Expired', 'Revoked'] as const;

/** The CEL variables the checks below read. */
export function requestVariables(): { name: string; expression: string }[] {
  return [
    { name: 'newRevocation', expression: 'object.?spec.?revocation' },
    { name: 'oldRevocation', expression: 'oldObject == null ? optional.none() : oldObject.?spec.?revocation' },
    { name: 'revocationChanges', expression: 'variables.newRevocation != variables.oldRevocation' },
    { name: 'newRetry', expression: 'object.?spec.?retry' },
    { name: 'oldRetry', expression: 'oldObject == null ? optional.none() : oldObject.?spec.?retry' },
    { name: 'retryChanges', expression: 'variables.newRetry != variables.oldRetry' },
    { name: 'newDisruption', expression: 'object.?spec.?disruption' },
    { name: 'oldDisruption', expression: 'oldObject == null ? optional.none() : oldObject.?spec.?disruption' },
    { name: 'disruptionChanges', expression: 'variables.newDisruption != variables.oldDisruption' },
  ];
}

type Validation = Record<string, string>;

const AUTHORIZED = `authorizer.group(${celString(API_GROUP)}).resource(${celString(PLURAL)}).name(object.metadata.name).check(${celString(APPROVAL.verb)}).allowed()`;

/** Who may ask, and as whom: the same people as approve, each only as themselves. */
interface Request {
  /** The variables' stem: newRetry, oldRetry, retryChanges. */
  readonly stem: 'Revocation' | 'Retry' | 'Disruption';
  readonly field: string;
  readonly by: string;
  readonly doing: string;
}

function common({ stem, field, by, doing }: Request): Validation[] {
  const changes = `${stem.charAt(0).toLowerCase()}${stem.slice(1)}Changes`;
  return [
    {
      expression: `!variables.${changes} || ${AUTHORIZED}`,
      messageExpression: `request.userInfo.username + ' is not allowed to ${doing}: RBAC grants no ${APPROVAL.verb} verb on ${PLURAL}; ${APPROVER_HINT}'`,
      reason: 'Forbidden',
    },
    {
      expression: `!variables.${changes} || object.?spec.?${field}.?${by}.orValue('') == request.userInfo.username`,
      messageExpression: `'spec.${field}.${by} must be your own identity as the API server sees it (' + request.userInfo.username + ')'`,
      reason: 'Forbidden',
    },
  ];
}

/** Checks on spec.revocation. */
export function revocationValidations(): Validation[] {
  return [
    {
      expression: '!variables.revocationChanges || !variables.oldRevocation.hasValue()',
      messageExpression:
        "'spec.revocation is set once: rollout ' + object.metadata.name + ' was revoked by ' + variables.oldRevocation.value().revokedBy + ' at ' + variables.oldRevocation.value().revokedAt + '; it is neither changed nor taken back. Retry it with kubectl aicr retry ' + object.metadata.name",
      reason: 'Forbidden',
    },
    {
      expression: "!variables.revocationChanges || object.?status.?outcome.orValue('') == ''",
      messageExpression:
        "'spec.revocation: rollout ' + object.metadata.name + ' has ended ' + object.status.outcome + '; there is nothing to revoke'",
      reason: 'Forbidden',
    },
    ...common({ stem: 'Revocation', field: 'revocation', by: 'revokedBy', doing: 'revoke rollouts' }),
  ];
}

/** Checks on spec.retry. */
export function retryValidations(): Validation[] {
  const allowed = ['', ...RETRYABLE_OUTCOMES].map((o) => `'${o}'`).join(', ');
  return [
    {
      expression: '!variables.retryChanges || !variables.oldRetry.hasValue()',
      messageExpression:
        "'spec.retry is set once: a retry of rollout ' + object.metadata.name + ' was already requested by ' + variables.oldRetry.value().requestedBy + ' at ' + variables.oldRetry.value().requestedAt + '; kubectl aicr describe names the new rollout'",
      reason: 'Forbidden',
    },
    {
      expression: `!variables.retryChanges || object.?status.?outcome.orValue('') in [${allowed}]`,
      messageExpression: `'spec.retry: rollout ' + object.metadata.name + ' ended ' + object.status.outcome + ', which is not retried; only a rollout that has not ended or ended ${RETRYABLE_OUTCOMES.join(', ')} can be. Change the target plan to roll out again'`,
      reason: 'Forbidden',
    },
    ...common({ stem: 'Retry', field: 'retry', by: 'requestedBy', doing: 'retry rollouts' }),
  ];
}

/** Checks on spec.disruption (GPU-2): the go-ahead to disrupt running GPU work. */
export function disruptionValidations(): Validation[] {
  return [
    {
      expression: '!variables.disruptionChanges || !variables.oldDisruption.hasValue()',
      messageExpression:
        "'spec.disruption is set once: ' + variables.oldDisruption.value().approvedBy + ' let rollout ' + object.metadata.name + ' disrupt running GPU work at ' + variables.oldDisruption.value().approvedAt + '; it is neither changed nor taken back. Revoke the rollout to stop it'",
      reason: 'Forbidden',
    },
    {
      expression: "!variables.disruptionChanges || object.?status.?outcome.orValue('') == ''",
      messageExpression:
        "'spec.disruption: rollout ' + object.metadata.name + ' has ended ' + object.status.outcome + '; there is nothing left to disrupt'",
      reason: 'Forbidden',
    },
    ...common({
      stem: 'Disruption',
      field: 'disruption',
      by: 'approvedBy',
      doing: 'let rollouts disrupt running GPU work',
    }),
  ];
}

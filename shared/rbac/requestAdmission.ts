// The admission checks on a person's requests to end a rollout, to run it again or to let it
// disrupt running GPU work: spec.revocation, spec.retry and spec.disruption. Each is set once, by
// someone RBAC lets approve, naming themselves, and only where the control plane can act on it: a
// revocation or a disruption while the rollout has not ended, a retry while it has not ended or
// after it ended Failed, Expired or Revoked. Each check holds trivially when a write leaves the
// field as it was, so approving and acknowledging are not held to these.
import {
  anyDiffers,
  asThemselves,
  byAnApprover,
  onChange,
  sentAndStored,
  type Check,
  type Variable,
} from './personChecks.ts';

/** Outcomes after which a retry makes a new rollout; a success or a superseded rollout has nothing to retry. */
export const RETRYABLE_OUTCOMES = ['Failed', 'Expired', 'Revoked'] as const;

/** One request a person sets once; `stem` names its variables (newRetry, oldRetry, retryChanges). */
interface Request {
  readonly stem: 'Revocation' | 'Retry' | 'Disruption';
  /** The field of the request naming who set it. */
  readonly by: string;
  /** What a requester RBAC refuses was trying to do. */
  readonly doing: string;
}

const REVOCATION: Request = { stem: 'Revocation', by: 'revokedBy', doing: 'revoke rollouts' };
const RETRY: Request = { stem: 'Retry', by: 'requestedBy', doing: 'retry rollouts' };
const DISRUPTION: Request = { stem: 'Disruption', by: 'approvedBy', doing: 'let rollouts disrupt running GPU work' };

const fieldOf = (r: Request): string => r.stem.toLowerCase();
const changesOf = (r: Request): string => `${fieldOf(r)}Changes`;

/** The CEL variables the checks below read. */
export function requestVariables(): Variable[] {
  return [REVOCATION, RETRY, DISRUPTION].flatMap((r) => [
    ...sentAndStored(r.stem, fieldOf(r)),
    { name: changesOf(r), expression: anyDiffers([r.stem]) },
  ]);
}

/** Once stored, the request is neither changed nor taken back; `messageExpression` says who set it and when. */
function setOnce(r: Request, messageExpression: string): Check {
  return onChange(changesOf(r), `!variables.old${r.stem}.hasValue()`, { messageExpression });
}

/** Only a rollout that has not ended takes the request; after that there is `nothing` to do. */
function beforeTheEnd(r: Request, nothing: string): Check {
  return onChange(changesOf(r), "object.?status.?outcome.orValue('') == ''", {
    messageExpression:
      `'spec.${fieldOf(r)}: rollout ' + object.metadata.name + ' has ended ' + object.status.outcome + ` +
      `'; there is ${nothing}'`,
  });
}

/** Who may ask, and as whom: the same people as approve, each only as themselves. */
function fromAnApprover(r: Request): Check[] {
  const field = fieldOf(r);
  return [
    byAnApprover(changesOf(r), r.doing),
    asThemselves(
      changesOf(r),
      `spec.${field}.${r.by}`,
      `object.?spec.?${field}.?${r.by}.orValue('') == request.userInfo.username`,
    ),
  ];
}

/** Checks on spec.revocation. */
export function revocationValidations(): Check[] {
  return [
    setOnce(
      REVOCATION,
      "'spec.revocation is set once: rollout ' + object.metadata.name + ' was revoked by ' + " +
        "variables.oldRevocation.value().revokedBy + ' at ' + variables.oldRevocation.value().revokedAt + " +
        "'; it is neither changed nor taken back. Retry it with kubectl aicr retry ' + object.metadata.name",
    ),
    beforeTheEnd(REVOCATION, 'nothing to revoke'),
    ...fromAnApprover(REVOCATION),
  ];
}

/** Checks on spec.retry. */
export function retryValidations(): Check[] {
  const allowed = ['', ...RETRYABLE_OUTCOMES].map((o) => `'${o}'`).join(', ');
  return [
    setOnce(
      RETRY,
      "'spec.retry is set once: a retry of rollout ' + object.metadata.name + ' was already requested by ' + " +
        "variables.oldRetry.value().requestedBy + ' at ' + variables.oldRetry.value().requestedAt + " +
        "'; kubectl aicr describe names the new rollout'",
    ),
    onChange('retryChanges', `object.?status.?outcome.orValue('') in [${allowed}]`, {
      messageExpression:
        "'spec.retry: rollout ' + object.metadata.name + ' ended ' + object.status.outcome + " +
        "', which is not retried; " +
        `only a rollout that has not ended or ended ${RETRYABLE_OUTCOMES.join(', ')} can be. ` +
        "Change the target plan to roll out again'",
    }),
    ...fromAnApprover(RETRY),
  ];
}

/** Checks on spec.disruption (GPU-2): the go-ahead to disrupt running GPU work. */
export function disruptionValidations(): Check[] {
  return [
    setOnce(
      DISRUPTION,
      "'spec.disruption is set once: ' + variables.oldDisruption.value().approvedBy + ' let rollout ' + " +
        "object.metadata.name + ' disrupt running GPU work at ' + variables.oldDisruption.value().approvedAt + " +
        "'; it is neither changed nor taken back. Revoke the rollout to stop it'",
    ),
    beforeTheEnd(DISRUPTION, 'nothing left to disrupt'),
    ...fromAnApprover(DISRUPTION),
  ];
}

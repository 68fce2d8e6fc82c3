// What the admission checks on a person's fields of a rollout have in common (approvalAdmission.ts,
// requestAdmission.ts): each field is read as sent and as stored, each check holds trivially when
// a write leaves its field as it was, and a change is held to someone RBAC lets approve, naming
// themselves as the API server sees them.
import { API_GROUP, APPROVAL, KINDS } from '../api/constants.ts';
import { celString } from '../api/cel.ts';

/** One validation of the policy. Forbidden, so the API server answers 403 as for any refusal of who is asking. */
export type Check = Record<string, string>;
export interface Variable {
  readonly name: string;
  readonly expression: string;
}

const PLURAL = KINDS.runtimeRollout.plural;
const APPROVER_HINT = `bind ClusterRole ${APPROVAL.approverRole} to whoever may approve`;

/** RBAC grants the requester the approve verb on this rollout: one question for every field a person writes. */
const AUTHORIZED =
  `authorizer.group(${celString(API_GROUP)}).resource(${celString(PLURAL)}).name(object.metadata.name)` +
  `.check(${celString(APPROVAL.verb)}).allowed()`;

/**
 * Variables `new<stem>` and `old<stem>`: spec.<path> as sent and as stored (nothing on a create).
 * With `empty` a missing field reads as that CEL value; without it both stay optional.
 */
export function sentAndStored(stem: string, path: string, empty?: string): Variable[] {
  const read = empty === undefined ? '' : `.orValue(${empty})`;
  return [
    { name: `new${stem}`, expression: `object.?spec.?${path}${read}` },
    {
      name: `old${stem}`,
      expression: `oldObject == null ? ${empty ?? 'optional.none()'} : oldObject.?spec.?${path}${read}`,
    },
  ];
}

/** Any of the `stems`' values as sent differs from the one stored. */
export function anyDiffers(stems: readonly string[]): string {
  return stems.map((s) => `variables.new${s} != variables.old${s}`).join(' || ');
}

/** A check of `holds` that a write leaving variable `changes` false skips. */
export function onChange(
  changes: string,
  holds: string,
  says: { readonly message: string } | { readonly messageExpression: string },
): Check {
  return { expression: `!variables.${changes} || ${holds}`, ...says, reason: 'Forbidden' };
}

/** The change comes from someone RBAC lets approve; `doing` names what a refused requester tried. */
export function byAnApprover(changes: string, doing: string): Check {
  return onChange(changes, AUTHORIZED, {
    messageExpression:
      `request.userInfo.username + ' is not allowed to ${doing}: ` +
      `RBAC grants no ${APPROVAL.verb} verb on ${PLURAL}; ${APPROVER_HINT}'`,
  });
}

/** What `field` names, as `holds` checks, is the requester as the API server sees them. */
export function asThemselves(changes: string, field: string, holds: string): Check {
  const text = `'${field} must be your own identity as the API server sees it ('`;
  return onChange(changes, holds, { messageExpression: `${text} + request.userInfo.username + ')'` });
}

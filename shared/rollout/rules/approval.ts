// Whether the control plane accepts an approval an approver recorded (APR-2). Admission already
// held the approver to their own identity and to the approve verb; what only the control plane
// can judge is time, drift, the registry credentials Argo CD will pull with, and whether the
// emergency stop is in the state spec.suspendEngine declares (ENG-2: no new rollout starts while
// a switch of automated sync is refused).
import type { RolloutObject } from './rolloutObject.ts';

export interface ApprovalFacts {
  readonly rollout: RolloutObject;
  /** Digest of the owned Applications now (inventory.ts). */
  readonly inventory: string;
  /** Why the registry credentials are stale, when the engine says they are. */
  readonly staleCredentials?: string | undefined;
  /** Why an Application's automated sync could not be switched for spec.suspendEngine, while it cannot. */
  readonly suspensionRefused?: string | undefined;
}

export type Judgement =
  | { readonly state: 'none' }
  | { readonly state: 'Accepted'; readonly approvedBy: string; readonly approvedAt: string; readonly message: string }
  | {
      readonly state: 'Refused';
      readonly approvedBy: string;
      readonly approvedAt: string;
      readonly reason: string;
      readonly message: string;
      readonly supersede: boolean;
      /** The control plane refused this very approval before: final for it, only a new one is judged. */
      readonly recorded: boolean;
    };

export const REFUSAL = {
  expired: 'ApprovalAfterDeadline',
  drift: 'InventoryDrift',
  staleCredentials: 'RegistryCredentialsStale',
  suspensionRefused: 'EngineSuspensionRefused',
} as const;

function refusal(f: ApprovalFacts): { reason: string; message: string; supersede: boolean } | undefined {
  const { spec, metadata } = f.rollout;
  const at = spec.approval?.approvedAt ?? '';
  if (spec.deadline && Date.parse(at) > Date.parse(spec.deadline)) {
    return {
      reason: REFUSAL.expired,
      message: `the approval at ${at} came after the rollout's deadline, ${spec.deadline}`,
      supersede: false,
    };
  }
  if (spec.inventory && spec.inventory !== f.inventory) {
    const message =
      `the owned Argo CD Applications changed since rollout ${metadata.name} was created (drift since creation), ` +
      'so what was approved is not what would run; it is superseded by a new rollout from the current state, ' +
      'which needs a fresh approval';
    return { reason: REFUSAL.drift, message, supersede: true };
  }
  if (f.staleCredentials) {
    return {
      reason: REFUSAL.staleCredentials,
      message:
        `the registry credentials Argo CD pulls charts with are stale (${f.staleCredentials}); ` +
        'approve again once they are refreshed',
      supersede: false,
    };
  }
  if (f.suspensionRefused) {
    const message =
      `no new rollout starts while the engine suspension is refused (${f.suspensionRefused}); ` +
      'approve again once automated sync is in the state spec.suspendEngine declares';
    return { reason: REFUSAL.suspensionRefused, message, supersede: false };
  }
  return undefined;
}

/** The control plane's verdict in status, when it is about the very approval the spec records. */
export function verdictOnRecorded(r: RolloutObject): NonNullable<RolloutObject['status']>['approval'] {
  const given = r.status?.approval;
  const asked = r.spec.approval;
  return given && asked && given.approvedBy === asked.approvedBy && given.approvedAt === asked.approvedAt
    ? given
    : undefined;
}

/**
 * The verdict on the recorded approval: the one already given if it is about the same approval.
 * A refusal is final for the approval it judged, even once its cause is gone: the approver
 * replaces it with a new one (admission lets them), so nothing starts on a judgement made earlier.
 */
export function judgeApproval(f: ApprovalFacts): Judgement {
  const approval = f.rollout.spec.approval;
  if (!approval) return { state: 'none' };
  const given = verdictOnRecorded(f.rollout);
  const { approvedBy, approvedAt } = approval;
  if (given?.state === 'Accepted') return { state: 'Accepted', approvedBy, approvedAt, message: given.message };
  if (given?.state === 'Refused') {
    const { reason, message } = given;
    return { state: 'Refused', approvedBy, approvedAt, reason, message, supersede: false, recorded: true };
  }
  const refused = refusal(f);
  if (refused) return { state: 'Refused', approvedBy, approvedAt, ...refused, recorded: false };
  return { state: 'Accepted', approvedBy, approvedAt, message: `approved by ${approvedBy} at ${approvedAt}` };
}

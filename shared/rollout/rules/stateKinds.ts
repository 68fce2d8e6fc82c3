// The states a look can name (determineRolloutState in state.ts names one; actionFor in actions.ts
// maps each to its action), and the words they are told in.
import type { Outcome } from '../../api/runtimeRollout.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { Judgement } from './approval.ts';
import type { RolloutObject } from './rolloutObject.ts';

/** Where a rollout that has not ended stands with its approval. */
export type Approval =
  | { readonly phase: 'AssessedSafe' }
  | { readonly phase: 'Accepted'; readonly judgement: Extract<Judgement, { state: 'Accepted' }> }
  | { readonly phase: 'Refused'; readonly judgement: Extract<Judgement, { state: 'Refused' }> }
  | { readonly phase: 'Expired' }
  | { readonly phase: 'AwaitingApproval' };

export type Badly = Extract<Outcome, 'Failed' | 'Expired' | 'Revoked'>;

export interface Rebuilt {
  readonly digest: string;
  /** The plan digests the Applications record. */
  readonly plans: readonly string[];
}

export type RolloutState =
  // The runtime is being deleted.
  | { readonly kind: 'DeletionLeftAlone' }
  | { readonly kind: 'DeletionWaitsForNewer' }
  | { readonly kind: 'OrphanWaitsForApi' }
  | { readonly kind: 'OrphanBlocked'; readonly problem: string }
  /** `orphaned`: rollouts an earlier pass of this deletion ended, whose Events a crash may have lost. */
  | {
      readonly kind: 'Orphaning';
      readonly unfinished: readonly RolloutObject[];
      readonly orphaned: readonly RolloutObject[];
    }
  | { readonly kind: 'RemovalInFlight'; readonly rollout: RolloutObject; readonly approval: Approval }
  | { readonly kind: 'RemovalRevoked'; readonly rollout: RolloutObject }
  | { readonly kind: 'RemovalFailed'; readonly rollout: RolloutObject; readonly outcome: Badly }
  | { readonly kind: 'RemovalWaitsForApi' }
  | { readonly kind: 'NothingToRemove' }
  | { readonly kind: 'RemovalDue'; readonly plan: string }
  // Applications of another runtime are in Argo CD.
  | { readonly kind: 'OrphansPresent'; readonly others: readonly (readonly [string, readonly GenericObject[]])[] }
  | {
      readonly kind: 'AdoptionInFlight';
      readonly rollout: RolloutObject;
      readonly approval: Approval;
      readonly apps: readonly GenericObject[];
    }
  | { readonly kind: 'AdoptionEnded'; readonly rollout: RolloutObject; readonly outcome: Badly }
  | { readonly kind: 'AdoptionBlocked'; readonly why: string }
  | { readonly kind: 'AdoptionDue'; readonly apps: readonly GenericObject[]; readonly rebuilt: Rebuilt }
  // The runtime moves to its target plan.
  | { readonly kind: 'NoTarget' }
  | { readonly kind: 'NewerSchema' }
  | { readonly kind: 'Revoked'; readonly rollout: RolloutObject }
  | { readonly kind: 'InFlight'; readonly rollout: RolloutObject; readonly approval: Approval }
  | { readonly kind: 'Ended'; readonly rollout: RolloutObject; readonly outcome: Badly }
  | { readonly kind: 'Released'; readonly target: string }
  | { readonly kind: 'AwaitingResolution'; readonly target: string }
  | { readonly kind: 'Due'; readonly target: string; readonly from?: string; readonly unfinished: ReadonlySet<string> };

export type StateKind = RolloutState['kind'];

/** A rollout ended by the decision before its action runs: its target is gone, or a person asked for a retry. */
export interface Supersession {
  readonly rollout: RolloutObject;
  readonly why: string;
}

export interface Decided {
  readonly state: RolloutState;
  readonly supersede: readonly Supersession[];
}

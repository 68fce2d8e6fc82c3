// Decide, part two: the one action a state calls for. Each action is a file of actions/ and the
// only place its writes happen; the dispatcher (index.ts) runs it.
import type { Judgement } from './approval.ts';
import type { RolloutObject } from './rolloutObject.ts';
import type { Approval, RolloutState } from './stateKinds.ts';

/** What a rollout is for, which says how its end shows on a runtime (a removal's end is the deletion's). */
export type Purpose = 'upgrade' | 'adoption' | 'removal';

/** States that only say where things stand on the runtime's Released condition. */
export type ReportedState = Extract<
  RolloutState,
  {
    kind:
      | 'NoTarget'
      | 'NewerSchema'
      | 'Ended'
      | 'Released'
      | 'AwaitingResolution'
      | 'OrphansPresent'
      | 'AdoptionEnded'
      | 'AdoptionBlocked'
      | 'RemovalFailed'
      | 'RemovalWaitsForApi'
      | 'DeletionWaitsForNewer'
      | 'OrphanBlocked';
  }
>;

interface Following {
  readonly rollout: RolloutObject;
  readonly purpose: Purpose;
}

export type Action =
  | { readonly name: 'report'; readonly state: ReportedState }
  | { readonly name: 'leave' }
  | { readonly name: 'waitToOrphan' }
  | {
      readonly name: 'orphan';
      readonly unfinished: readonly RolloutObject[];
      readonly orphaned: readonly RolloutObject[];
    }
  | { readonly name: 'releaseCleanup' }
  | (Following & { readonly name: 'execute'; readonly accepted?: Extract<Judgement, { state: 'Accepted' }> })
  | (Following & { readonly name: 'expire' })
  | (Following & { readonly name: 'refuseApproval'; readonly judgement: Extract<Judgement, { state: 'Refused' }> })
  | (Following & { readonly name: 'awaitApproval' })
  | (Following & { readonly name: 'revoke' })
  | { readonly name: 'createUpgrade'; readonly state: Extract<RolloutState, { kind: 'Due' }> }
  | { readonly name: 'createAdoption'; readonly state: Extract<RolloutState, { kind: 'AdoptionDue' }> }
  | { readonly name: 'createRemoval'; readonly state: Extract<RolloutState, { kind: 'RemovalDue' }> };

export type ActionName = Action['name'];

/** What a rollout that has not ended calls for, by its approval. */
export function followAction(rollout: RolloutObject, approval: Approval, purpose: Purpose): Action {
  switch (approval.phase) {
    case 'AssessedSafe':
      return { name: 'execute', rollout, purpose };
    case 'Accepted':
      return { name: 'execute', rollout, purpose, accepted: approval.judgement };
    case 'Refused':
      return { name: 'refuseApproval', rollout, purpose, judgement: approval.judgement };
    case 'Expired':
      return { name: 'expire', rollout, purpose };
    case 'AwaitingApproval':
      return { name: 'awaitApproval', rollout, purpose };
  }
}

type ActionFor = { readonly [K in RolloutState['kind']]: (state: Extract<RolloutState, { kind: K }>) => Action };

const report = (state: ReportedState): Action => ({ name: 'report', state });

const ACTION_FOR: ActionFor = {
  NoTarget: report,
  NewerSchema: report,
  Ended: report,
  Released: report,
  AwaitingResolution: report,
  OrphansPresent: report,
  AdoptionEnded: report,
  AdoptionBlocked: report,
  RemovalFailed: report,
  RemovalWaitsForApi: report,
  DeletionWaitsForNewer: report,
  OrphanBlocked: report,
  DeletionLeftAlone: () => ({ name: 'leave' }),
  OrphanWaitsForApi: () => ({ name: 'waitToOrphan' }),
  Orphaning: (s) => ({ name: 'orphan', unfinished: s.unfinished, orphaned: s.orphaned }),
  NothingToRemove: () => ({ name: 'releaseCleanup' }),
  InFlight: (s) => followAction(s.rollout, s.approval, 'upgrade'),
  AdoptionInFlight: (s) => followAction(s.rollout, s.approval, 'adoption'),
  RemovalInFlight: (s) => followAction(s.rollout, s.approval, 'removal'),
  Revoked: (s) => ({ name: 'revoke', rollout: s.rollout, purpose: 'upgrade' }),
  RemovalRevoked: (s) => ({ name: 'revoke', rollout: s.rollout, purpose: 'removal' }),
  Due: (state) => ({ name: 'createUpgrade', state }),
  AdoptionDue: (state) => ({ name: 'createAdoption', state }),
  RemovalDue: (state) => ({ name: 'createRemoval', state }),
};

/** The one action the state calls for; every state has exactly one row above. */
export function actionFor(state: RolloutState): Action {
  // The row is the state's own, by its kind; TypeScript cannot follow that through the index.
  return (ACTION_FOR[state.kind] as (s: RolloutState) => Action)(state);
}

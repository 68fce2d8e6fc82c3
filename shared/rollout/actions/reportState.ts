// The states that call for no write: what the runtime's Released condition says about each.
import { planUnreadableNewer } from '../../status/reasonMessages.inventory.ts';
import { orphanedObjectsPresent, planUnreadableOrphaning } from '../../status/reasonMessages.noRollout.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import type { StepContext } from '../../look/contract.ts';
import type { ReportedState } from '../rules/actionFor.ts';
import type { RolloutLook } from '../io/look.ts';
import { type RolloutReport, released, removalFailed } from '../rules/released.ts';
import type { Badly } from '../rules/stateKinds.ts';

const BADLY_REASON = { Expired: 'RolloutExpired', Failed: 'RolloutFailed', Revoked: 'RolloutRevoked' } as const;

/** What the rollout said when it ended, which the runtime keeps saying until the target changes or a retry. */
function endedMessage(r: RolloutObject, outcome: Badly, noun: string): string {
  return (
    r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? `${noun} ${r.metadata.name} ended ${outcome}`
  );
}

/**
 * The active plan's message: what its last successful rollout said, so the message a success
 * wrote stays put on later looks instead of changing to a shorter one.
 */
function activeMessage(target: string, rollouts: readonly RolloutObject[]): string {
  const won = rollouts.filter((r) => r.spec.toPlan === target && r.status?.outcome === 'Succeeded').at(-1);
  const said = won?.status?.conditions?.find((c) => c.type === 'Ready')?.message;
  return said ? `plan ${target} is active: ${said}` : `plan ${target} is active`;
}

function orphansPresent(
  look: RolloutLook,
  others: Extract<ReportedState, { kind: 'OrphansPresent' }>['others'],
): RolloutReport {
  const owners = others.map(([uid, apps]) => ({ uid, apps: apps.map((a) => a.metadata.name) }));
  return released('False', 'OrphanedObjectsPresent', orphanedObjectsPresent(look.runtime.metadata.name, owners));
}

type Reports = {
  readonly [K in ReportedState['kind']]: (at: {
    readonly ctx: StepContext;
    readonly look: RolloutLook;
    readonly state: Extract<ReportedState, { kind: K }>;
  }) => RolloutReport;
};

const REPORTS: Reports = {
  NoTarget: () =>
    released('False', 'AwaitingPlan', 'no target plan yet: resolution names one once it has resolved the runtime'),
  NewerSchema: ({ look }) => released('False', 'PlanUnreadable', planUnreadableNewer(look.newer)),
  Ended: ({ state: s }) => released('False', BADLY_REASON[s.outcome], endedMessage(s.rollout, s.outcome, 'rollout')),
  Released: ({ look, state: s }) => released('True', 'Released', activeMessage(s.target, look.rollouts)),
  AwaitingResolution: ({ state: s }) =>
    released(
      'False',
      'AwaitingPlan',
      `no rollout to ${s.target} starts while resolution has not settled (Resolved is not True)`,
    ),
  OrphansPresent: ({ look, state: s }) => orphansPresent(look, s.others),
  AdoptionEnded: ({ state: s }) =>
    released('False', BADLY_REASON[s.outcome], endedMessage(s.rollout, s.outcome, 'adoption')),
  AdoptionBlocked: ({ state: s }) =>
    released(
      'False',
      'AdoptionBlocked',
      `${s.why}. Undo the change; the control plane does not adopt a stack it cannot verify`,
    ),
  RemovalFailed: ({ state: s }) => removalFailed(s.rollout, endedMessage(s.rollout, s.outcome, 'removal')),
  RemovalWaitsForApi: ({ ctx }) =>
    released(
      'False',
      'RolloutProgressing',
      "the deletion (deletionPolicy Delete) waits: Argo CD's Application API is not served, " +
        'so the releases to remove cannot be listed',
      { recheckAfterMs: ctx.timings.engineRecheckMs },
    ),
  DeletionWaitsForNewer: ({ look }) =>
    released('False', 'PlanUnreadable', `the deletion waits: ${planUnreadableNewer(look.newer)}`),
  OrphanBlocked: ({ state: s }) => released('False', 'PlanUnreadable', planUnreadableOrphaning(s.problem)),
};

export function reportOf(ctx: StepContext, look: RolloutLook, state: ReportedState): RolloutReport {
  return (REPORTS[state.kind] as (at: { ctx: StepContext; look: RolloutLook; state: ReportedState }) => RolloutReport)({
    ctx,
    look,
    state,
  });
}

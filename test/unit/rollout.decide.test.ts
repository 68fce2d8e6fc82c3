// The rollout step's decision, without a cluster: every state determineRolloutState can name has
// exactly one action (actionFor), and the looks that lead to each state, including those only a
// real cluster reached before (a revocation during a deletion, a retry during an adoption).
import assert from 'node:assert/strict';
import test from 'node:test';
import { type ActionName, actionFor } from '../../shared/rollout/rules/actionFor.ts';
import type { RolloutLook } from '../../shared/rollout/io/look.ts';
import { determineRolloutState } from '../../shared/rollout/rules/state.ts';
import type { RolloutState, StateKind } from '../../shared/rollout/rules/stateKinds.ts';
import { settingsOf } from '../../shared/rollout/rules/settings.ts';
import { type RolloutObject, parseRollout } from '../../shared/rollout/rules/rolloutObject.ts';
import { parseConfiguration } from '../../shared/configuration/read.ts';
import type { GenericObject, RuntimeObject } from '../../shared/kube/kinds.ts';
import { FINALIZER } from '../../shared/api/constants.ts';

const NOW = new Date('2026-12-02T10:00:00Z');
const UID = '11111111-1111-4111-8111-111111111111';
const OTHER = '22222222-2222-4222-8222-222222222222';
const TARGET = `aicr-plan-${'b'.repeat(64)}`;
const ACTIVE = `aicr-plan-${'a'.repeat(64)}`;

interface RolloutShape {
  readonly toPlan?: string;
  readonly type?: 'Upgrade' | 'Adopt' | 'Remove';
  readonly outcome?: string;
  readonly spec?: Record<string, unknown>;
  readonly verdict?: 'safe' | 'unknown';
  readonly at?: string;
}

function rollout(name: string, s: RolloutShape = {}): RolloutObject {
  const raw = {
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: s.at ?? '2026-12-02T09:00:00Z',
      generation: 1,
      resourceVersion: '1',
    },
    spec: {
      runtimeUID: UID,
      type: s.type ?? 'Upgrade',
      toPlan: s.toPlan ?? TARGET,
      steps: [
        {
          release: 'gpu-operator',
          action: s.type === 'Remove' ? 'Remove' : 'Upgrade',
          verdict: s.verdict ?? 'unknown',
        },
      ],
      inventory: 'inv',
      deadline: '2026-12-03T09:00:00Z',
      ...s.spec,
    },
    ...(s.outcome
      ? {
          status: {
            outcome: s.outcome,
            conditions: [
              {
                type: 'Ready',
                status: 'False',
                reason: 'RolloutFailed',
                message: `it ended ${s.outcome}`,
                lastTransitionTime: '2026-12-02T09:30:00Z',
              },
            ],
          },
        }
      : {}),
  };
  const parsed = parseRollout(raw);
  if (!parsed) throw new Error(`rollout fixture ${name} does not fit the schema`);
  return parsed;
}

function app(name: string, runtimeUID = UID): GenericObject {
  return {
    metadata: {
      name,
      uid: `uid-${name}`,
      resourceVersion: '1',
      namespace: 'argocd',
      annotations: { 'operator.aicr.run/runtime-uid': runtimeUID, 'operator.aicr.run/plan-digest': 'a'.repeat(64) },
    },
  };
}

interface LookShape {
  readonly spec?: Record<string, unknown>;
  readonly deleting?: boolean;
  readonly finalizer?: boolean;
  readonly rollouts?: readonly RolloutObject[];
  readonly apps?: readonly GenericObject[];
  readonly foreign?: ReadonlyMap<string, GenericObject[]>;
  readonly served?: boolean;
  readonly target?: string | null;
  readonly active?: string;
  readonly resolved?: boolean;
  readonly newer?: readonly string[];
  readonly look?: Partial<RolloutLook>;
}

const CONFIGURATION = parseConfiguration(
  'aicr:\n  digests: Optional\n  versions:\n    v0.11.1: ghcr.io/nvidia/aicr:v0.11.1\nregistry:\n  repository: registry.example/aicr\n',
);

function runtimeOf(s: LookShape): RuntimeObject {
  const deleting = s.deleting ? { deletionTimestamp: '2026-12-02T09:59:00Z' } : {};
  const finalizers = s.finalizer === false ? {} : { finalizers: [FINALIZER.cleanup] };
  return {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'gpu', uid: UID, ...deleting, ...finalizers },
    spec: { aicrVersion: 'v0.11.1', ...s.spec },
  } as RuntimeObject;
}

function lookOf(s: LookShape = {}): RolloutLook {
  const runtime = runtimeOf(s);
  const target = s.target === null ? undefined : (s.target ?? TARGET);
  const base = {
    rollouts: [],
    apps: [],
    served: true,
    foreign: new Map<string, GenericObject[]>(),
    newer: [],
    resolved: true,
    ...s,
  };
  return {
    runtime,
    settings: settingsOf(runtime),
    configuration: CONFIGURATION,
    rollouts: base.rollouts,
    records: base.rollouts,
    apps: base.apps,
    inventory: 'inv',
    served: base.served,
    foreign: base.foreign,
    newer: base.newer,
    engine: { available: true, message: 'up' },
    ...(target ? { targetPlan: target } : {}),
    ...(s.active ? { activePlan: s.active } : {}),
    resolved: base.resolved,
    ...s.look,
  };
}

const at = (look: RolloutLook): RolloutState => determineRolloutState(look, NOW).state;

// One look per state, and the action it calls for. The Record's type fails to compile when a
// state is added without a row here.
const CASES: { readonly [K in StateKind]: { readonly look: RolloutLook; readonly action: ActionName } } = {
  DeletionLeftAlone: { look: lookOf({ deleting: true, finalizer: false }), action: 'leave' },
  DeletionWaitsForNewer: { look: lookOf({ deleting: true, newer: ['rollout x (schema v9)'] }), action: 'report' },
  OrphanWaitsForApi: { look: lookOf({ deleting: true, served: false }), action: 'waitToOrphan' },
  OrphanBlocked: {
    look: lookOf({ deleting: true, look: { active: { state: 'unreadable', problem: 'plan does not read' } } }),
    action: 'report',
  },
  Orphaning: { look: lookOf({ deleting: true, apps: [app('gpu-operator')] }), action: 'orphan' },
  RemovalInFlight: {
    look: lookOf({ deleting: true, spec: { deletionPolicy: 'Delete' }, rollouts: [rollout('rm', { type: 'Remove' })] }),
    action: 'awaitApproval',
  },
  RemovalRevoked: {
    look: lookOf({
      deleting: true,
      spec: { deletionPolicy: 'Delete' },
      rollouts: [
        rollout('rm', {
          type: 'Remove',
          spec: { revocation: { revokedBy: 'ops', revokedAt: '2026-12-02T09:50:00Z' } },
        }),
      ],
    }),
    action: 'revoke',
  },
  RemovalFailed: {
    look: lookOf({
      deleting: true,
      spec: { deletionPolicy: 'Delete' },
      rollouts: [rollout('rm', { type: 'Remove', outcome: 'Expired' })],
    }),
    action: 'report',
  },
  RemovalWaitsForApi: {
    look: lookOf({ deleting: true, spec: { deletionPolicy: 'Delete' }, served: false }),
    action: 'report',
  },
  NothingToRemove: { look: lookOf({ deleting: true, spec: { deletionPolicy: 'Delete' } }), action: 'releaseCleanup' },
  RemovalDue: {
    look: lookOf({ deleting: true, spec: { deletionPolicy: 'Delete' }, apps: [app('gpu-operator')], active: ACTIVE }),
    action: 'createRemoval',
  },
  OrphansPresent: { look: lookOf({ foreign: new Map([[OTHER, [app('gpu-operator', OTHER)]]]) }), action: 'report' },
  AdoptionInFlight: {
    look: lookOf({
      spec: { adoption: { runtimeUID: OTHER } },
      foreign: new Map([[OTHER, [app('gpu-operator', OTHER)]]]),
      rollouts: [rollout('adopt', { type: 'Adopt' })],
    }),
    action: 'awaitApproval',
  },
  AdoptionEnded: {
    look: lookOf({
      spec: { adoption: { runtimeUID: OTHER } },
      foreign: new Map([[OTHER, [app('gpu-operator', OTHER)]]]),
      rollouts: [rollout('adopt', { type: 'Adopt', outcome: 'Failed' })],
    }),
    action: 'report',
  },
  AdoptionBlocked: {
    look: lookOf({
      spec: { adoption: { runtimeUID: OTHER } },
      foreign: new Map([[OTHER, [app('gpu-operator', OTHER)]]]),
    }),
    action: 'report',
  },
  // An adoption that can rebuild needs real Applications; its row is checked by the action alone below.
  AdoptionDue: { look: lookOf(), action: 'createAdoption' },
  NoTarget: { look: lookOf({ target: null }), action: 'report' },
  NewerSchema: { look: lookOf({ newer: ['rollout x (schema v9)'] }), action: 'report' },
  Revoked: {
    look: lookOf({
      rollouts: [rollout('r1', { spec: { revocation: { revokedBy: 'ops', revokedAt: '2026-12-02T09:50:00Z' } } })],
    }),
    action: 'revoke',
  },
  InFlight: { look: lookOf({ rollouts: [rollout('r1')] }), action: 'awaitApproval' },
  Ended: { look: lookOf({ rollouts: [rollout('r1', { outcome: 'Failed' })] }), action: 'report' },
  Released: { look: lookOf({ active: TARGET }), action: 'report' },
  AwaitingResolution: { look: lookOf({ resolved: false }), action: 'report' },
  Due: { look: lookOf({ active: ACTIVE }), action: 'createUpgrade' },
};

test('every state the rollout step can name has one action, and the look of each row leads to its state', () => {
  for (const [kind, c] of Object.entries(CASES)) {
    if (kind === 'AdoptionDue') {
      const due: RolloutState = { kind: 'AdoptionDue', apps: [], rebuilt: { digest: 'a'.repeat(64), plans: [] } };
      assert.equal(actionFor(due).name, c.action);
      continue;
    }
    const state = at(c.look);
    assert.equal(state.kind, kind, `the look for ${kind} is named ${state.kind}`);
    assert.equal(actionFor(state).name, c.action, `${kind} calls for ${c.action}`);
  }
});

test('APR-1 APR-2 a rollout that has not ended is run, refused, expired or kept waiting by its approval alone', () => {
  const approval = { approvedBy: 'alice', approvedAt: '2026-12-02T09:10:00Z' };
  const approved = at(lookOf({ rollouts: [rollout('r1', { spec: { approval } })] }));
  assert.equal(actionFor(approved).name, 'execute');
  const safe = at(lookOf({ rollouts: [rollout('r1', { verdict: 'safe' })] }));
  assert.equal(actionFor(safe).name, 'execute', 'assessed safe throughout, it needs no approver');
  const drifted = at(lookOf({ rollouts: [rollout('r1', { spec: { approval } })], look: { inventory: 'changed' } }));
  assert.equal(actionFor(drifted).name, 'refuseApproval', 'an approval given against other Applications is refused');
  const stale = at(
    lookOf({ rollouts: [rollout('r1', { spec: { approval } })], look: { staleCredentials: 'the token expired' } }),
  );
  assert.equal(actionFor(stale).name, 'refuseApproval');
  const late = at(lookOf({ rollouts: [rollout('r1', { spec: { deadline: '2026-12-02T09:30:00Z' } })] }));
  assert.equal(actionFor(late).name, 'expire');
});

test('FIN-3 a revocation during a deletion ends the removal Revoked; a retry of it supersedes it and makes a new one', () => {
  const revoked = determineRolloutState(
    lookOf({
      deleting: true,
      spec: { deletionPolicy: 'Delete' },
      apps: [app('gpu-operator')],
      active: ACTIVE,
      rollouts: [
        rollout('rm', {
          type: 'Remove',
          spec: { revocation: { revokedBy: 'ops', revokedAt: '2026-12-02T09:50:00Z' } },
        }),
      ],
    }),
    NOW,
  );
  assert.equal(revoked.state.kind, 'RemovalRevoked');
  assert.deepEqual(revoked.supersede, []);
  const retried = determineRolloutState(
    lookOf({
      deleting: true,
      spec: { deletionPolicy: 'Delete' },
      apps: [app('gpu-operator')],
      active: ACTIVE,
      rollouts: [
        rollout('rm', { type: 'Remove', spec: { retry: { requestedBy: 'ops', requestedAt: '2026-12-02T09:50:00Z' } } }),
      ],
    }),
    NOW,
  );
  assert.equal(retried.state.kind, 'RemovalDue');
  assert.deepEqual(
    retried.supersede.map((s) => s.rollout.metadata.name),
    ['rm'],
  );
  const upgrading = determineRolloutState(
    lookOf({
      deleting: true,
      spec: { deletionPolicy: 'Delete' },
      apps: [app('gpu-operator')],
      active: ACTIVE,
      rollouts: [rollout('up')],
    }),
    NOW,
  );
  assert.equal(upgrading.state.kind, 'RemovalDue');
  assert.match(
    upgrading.supersede[0]?.why ?? '',
    /deletionPolicy Delete/,
    'an upgrade in flight gives way to the removal',
  );
});

test('ROL-6 a new target supersedes the rollout to the old one; a retry supersedes the live one and a new rollout is due', () => {
  const old = `aicr-plan-${'c'.repeat(64)}`;
  const moved = determineRolloutState(lookOf({ active: ACTIVE, rollouts: [rollout('r-old', { toPlan: old })] }), NOW);
  assert.equal(moved.state.kind, 'Due');
  assert.deepEqual(
    moved.supersede.map((s) => [s.rollout.metadata.name, s.why]),
    [['r-old', `the target plan is now ${TARGET}`]],
  );
  const retry = determineRolloutState(
    lookOf({
      active: ACTIVE,
      rollouts: [rollout('r1', { spec: { retry: { requestedBy: 'bob', requestedAt: '2026-12-02T09:40:00Z' } } })],
    }),
    NOW,
  );
  assert.equal(retry.state.kind, 'Due');
  assert.equal(retry.supersede[0]?.rollout.metadata.name, 'r1');
  const ended = determineRolloutState(
    lookOf({
      active: ACTIVE,
      rollouts: [
        rollout('r1', {
          outcome: 'Revoked',
          spec: { retry: { requestedBy: 'bob', requestedAt: '2026-12-02T09:40:00Z' } },
        }),
      ],
    }),
    NOW,
  );
  assert.equal(ended.state.kind, 'Due', 'a retry of an ended rollout makes a new one');
  assert.deepEqual(ended.supersede, [], 'an ended rollout is not ended again');
});

test('ADO-3 a retry of an adoption in flight supersedes it; while an Application of an unnamed runtime is there nothing else is decided', () => {
  const foreign = new Map([[OTHER, [app('gpu-operator', OTHER)]]]);
  const retried = determineRolloutState(
    lookOf({
      spec: { adoption: { runtimeUID: OTHER } },
      foreign,
      rollouts: [
        rollout('adopt', {
          type: 'Adopt',
          spec: { retry: { requestedBy: 'ops', requestedAt: '2026-12-02T09:50:00Z' } },
        }),
      ],
    }),
    NOW,
  );
  assert.equal(retried.supersede[0]?.rollout.metadata.name, 'adopt');
  const stuck = determineRolloutState(
    lookOf({ foreign, rollouts: [rollout('r1', { toPlan: `aicr-plan-${'c'.repeat(64)}` })] }),
    NOW,
  );
  assert.equal(stuck.state.kind, 'OrphansPresent');
  assert.deepEqual(
    stuck.supersede,
    [],
    'nothing is superseded while the runtime stalls on another runtime’s Applications',
  );
});

test('FIN-2 an Orphan deletion ends the unfinished rollouts and counts those an earlier pass, cut short, already ended', () => {
  const look = lookOf({
    deleting: true,
    apps: [app('gpu-operator')],
    active: ACTIVE,
    rollouts: [
      rollout('live'),
      rollout('cut-short', { outcome: 'Orphaned' }),
      rollout('done', { outcome: 'Succeeded' }),
    ],
  });
  const { state } = determineRolloutState(look, NOW);
  assert.equal(state.kind, 'Orphaning');
  const action = actionFor(state);
  assert.equal(action.name, 'orphan');
  if (action.name !== 'orphan') return;
  assert.deepEqual(
    action.unfinished.map((r) => r.metadata.name),
    ['live'],
  );
  assert.deepEqual(
    action.orphaned.map((r) => r.metadata.name),
    ['cut-short'],
    'ended Orphaned by an earlier pass; a rollout that ended otherwise is left out',
  );
});

test('ADO-3 FLT-1 an approved adoption whose every mark moved before a crash is finished, not superseded: nothing is foreign any more, yet it is still the one to follow', () => {
  const approval = { approvedBy: 'alice', approvedAt: '2026-12-02T09:10:00Z' };
  const adopt = rollout('adopt', { type: 'Adopt', toPlan: `aicr-plan-${'c'.repeat(64)}`, spec: { approval } });
  const accepted: RolloutObject = {
    ...adopt,
    status: { approval: { state: 'Accepted', ...approval, reason: 'Approved', message: 'approved' } },
  } as RolloutObject;
  const after = determineRolloutState(
    lookOf({ spec: { adoption: { runtimeUID: OTHER } }, apps: [app('gpu-operator')], rollouts: [accepted] }),
    NOW,
  );
  assert.equal(after.state.kind, 'AdoptionInFlight');
  assert.deepEqual(after.supersede, [], 'the adoption is not taken for a rollout to an old target');
  assert.equal(
    actionFor(after.state).name,
    'execute',
    'its recorded verdict stands, though the Applications it judged are no longer foreign',
  );
  // Without the verdict recorded nothing was moved yet; with nothing foreign it is an old rollout again.
  const unrecorded = determineRolloutState(lookOf({ apps: [app('gpu-operator')], rollouts: [adopt] }), NOW);
  assert.notEqual(unrecorded.state.kind, 'AdoptionInFlight');
});

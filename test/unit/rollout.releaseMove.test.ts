// How one release of a running rollout moves (releaseMove), one row per release state and fact
// that moves it: the gates of a Pending release in order, a release in flight against Argo CD's
// report and its actionTimeout, removals, adoptions and acknowledgements. Pure: no cluster.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ANNOTATION } from '../../shared/api/constants.ts';
import type { RolloutStep } from '../../shared/api/runtimeRollout.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import { type PlanApplication, planToApplications } from '../../shared/plans/applications.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import type { ChartSource, Release } from '../../shared/plans/release.ts';
import { STEP_WRITING, type StepState } from '../../shared/rollout/rules/progress.ts';
import { releaseMove } from '../../shared/rollout/rules/releaseMove.ts';
import type { ReleaseFacts, ReleaseMove } from '../../shared/rollout/rules/releaseMoveKinds.ts';
import { sampleReleases } from '../helpers/releases.ts';

const UID = '0b6f3c1e-5d2a-4f7e-9c8b-1a2b3c4d5e6f';
const releases = sampleReleases();
const app = planToApplications(releases, { runtimeUID: UID, planDigest: planDigest(releases) }).find(
  (a) => a.spec.source,
) as PlanApplication;
const release = releases.find((r) => r.name === app.metadata.name) as Release;
const chart = release.chart as ChartSource;
const plainChart: ChartSource = { repoURL: chart.repoURL, chart: chart.chart, version: chart.version };
const unpinned: Release = { ...release, chart: plainChart };
const pinnedRelease: Release = { ...release, chart: { ...plainChart, digest: `sha256:${'a'.repeat(64)}` } };
const manual: Release = { ...unpinned, manual: true, steps: ['drain the GPU Nodes by hand'] };

const NOW = new Date('2026-12-02T10:00:00Z');
const STARTED = '2026-12-02T09:58:00Z';
const LATE = '2026-12-02T09:00:00Z';
const closedWindow = { open: false as const, why: 'a deny window holds until 12:00', recheckAfterMs: 60_000 };
const running = { shown: ['gpu/train-0'], count: 1, gpuNodes: 2 };
const guard = { priorityClasses: ['training'], disruptive: new Set([release.name]), maxWaitMs: 3_600_000 };

const step = (action: RolloutStep['action'], more: Partial<RolloutStep> = {}): RolloutStep => ({
  release: release.name,
  action,
  toVersion: '1.0.0',
  ...more,
});
const pending: StepState = { release: release.name, state: 'Pending' };
const inFlight = (more: Partial<StepState> = {}): StepState => ({
  release: release.name,
  state: 'InProgress',
  startedAt: STARTED,
  reason: 'GateNotMet',
  message: 'written',
  ...more,
});

/** The Application as Argo CD reports it: synced and healthy at what was written, after the write. */
function reported(settled: boolean, more: Record<string, unknown> = {}): GenericObject {
  const live = JSON.parse(JSON.stringify(app)) as Record<string, unknown>;
  live['metadata'] = { ...(live['metadata'] as object), uid: 'app-uid', resourceVersion: '1', ...more };
  const source = app.spec.source;
  live['status'] = {
    reconciledAt: '2026-12-02T09:59:30Z',
    sync: {
      status: settled ? 'Synced' : 'OutOfSync',
      revision: source?.targetRevision,
      comparedTo: { source, destination: app.spec.destination },
    },
    health: { status: 'Healthy' },
    operationState: { phase: 'Succeeded', syncResult: { revision: source?.targetRevision } },
  };
  return live as unknown as GenericObject;
}

const foreign = (): GenericObject => {
  const a = reported(true);
  return { ...a, metadata: { ...a.metadata, annotations: { [ANNOTATION.runtimeUID]: 'another-runtime' } } };
};
const ours = (): GenericObject => {
  const a = reported(true);
  return { ...a, metadata: { ...a.metadata, annotations: { [ANNOTATION.runtimeUID]: UID } } };
};

/** Ours, with Argo CD deleting it. */
const deleting = (): GenericObject => ({ ...ours(), metadata: { ...ours().metadata, deletionTimestamp: STARTED } });

/** A row's facts over the defaults; a fact given as undefined is one the look has not read. */
type Over = { readonly [K in keyof ReleaseFacts]?: ReleaseFacts[K] | undefined };

function facts(over: Over): ReleaseFacts {
  const merged: Record<string, unknown> = {
    step: step('Install'),
    state: pending,
    words: {
      index: 0,
      rollout: 'aicr-rollout-x',
      toPlan: 'aicr-plan-x',
      head: 'rollout aicr-rollout-x',
      where: 'step 1 of 1',
    },
    runtimeUID: UID,
    now: NOW,
    actionTimeoutMs: 30 * 60_000,
    intended: app,
    release: pinnedRelease,
    pins: { state: 'held' },
    acknowledged: false,
    maintenance: { open: true },
    guard: { applies: false },
    syncWindow: { open: true },
    ...over,
  };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as unknown as ReleaseFacts;
}

/** What a row expects: the move's kind, and what it names (a fact, an end, an action) and records. */
interface Expected {
  readonly kind: ReleaseMove['kind'];
  readonly names?: string;
  readonly state?: Partial<StepState>;
  readonly absent?: readonly (keyof StepState)[];
}

function named(move: ReleaseMove): string | undefined {
  switch (move.kind) {
    case 'need':
      return move.fact;
    case 'act':
      return `${move.action.name}${move.action.name === 'write' && move.action.refresh ? '+refresh' : ''}/${move.then}`;
    case 'end':
      return move.end.kind === 'stall' || move.end.kind === 'guard'
        ? `${move.end.kind}:${move.end.reason}`
        : move.end.kind === 'window'
          ? `window:${move.end.what}`
          : move.end.kind;
    default:
      return undefined;
  }
}

const ROWS: readonly (readonly [string, Over, Expected])[] = [
  // Pending: the gates in order, then the start.
  ['Pending, maintenance window closed', { maintenance: closedWindow }, { kind: 'end', names: 'window:waits before' }],
  ['Pending, sync windows not read yet', { syncWindow: undefined }, { kind: 'need', names: 'syncWindow' }],
  ['Pending, a sync window holds', { syncWindow: closedWindow }, { kind: 'end', names: 'window:waits before' }],
  [
    'Pending, the guard does not read',
    { guard: { applies: true, guard: 'unreadable' } },
    { kind: 'end', names: 'guard:WaitingForWorkloads' },
  ],
  ['Pending, protected work not looked at yet', { guard: { applies: true, guard } }, { kind: 'need', names: 'work' }],
  [
    'Pending, protected work runs within maxWait',
    { guard: { applies: true, guard }, work: running },
    { kind: 'end', names: 'guard:WaitingForWorkloads', state: { waitingSince: '2026-12-02T10:00:00Z' } },
  ],
  [
    'Pending, protected work runs past maxWait',
    { guard: { applies: true, guard }, work: running, state: { ...pending, waitingSince: LATE } },
    { kind: 'end', names: 'guard:WorkloadsStillRunning', state: { waitingSince: LATE } },
  ],
  [
    'Pending, protected work ended',
    {
      guard: { applies: true, guard },
      work: { shown: [], count: 0, gpuNodes: 2 },
      state: { ...pending, waitingSince: LATE },
    },
    { kind: 'act', names: 'write/progress', absent: ['waitingSince'] },
  ],
  [
    'Pending, release missing from the plan',
    { intended: undefined },
    { kind: 'end', names: 'stall:StepUnknown', state: { reason: 'StepUnknown' } },
  ],
  ['Pending, pins not checked yet', { release: pinnedRelease, pins: undefined }, { kind: 'need', names: 'pins' }],
  [
    'Pending, a chart the plan recorded no digest of',
    { release: unpinned, pins: undefined },
    { kind: 'end', names: 'stall:ChartChanged', state: { reason: 'ChartChanged', state: 'Pending' } },
  ],
  [
    'Pending, registry cannot be asked',
    { release: pinnedRelease, pins: { state: 'unchecked', message: 'down' } },
    { kind: 'end', names: 'hold' },
  ],
  [
    'Pending, a pinned chart was pushed again',
    { release: pinnedRelease, pins: { state: 'changed', message: 'chart x changed' } },
    { kind: 'end', names: 'stall:ChartChanged', state: { reason: 'ChartChanged', state: 'Pending' } },
  ],
  [
    'Pending, every gate open',
    { release: pinnedRelease, pins: { state: 'held' } },
    {
      kind: 'act',
      names: 'write/progress',
      state: { state: 'InProgress', reason: STEP_WRITING, startedAt: '2026-12-02T10:00:00Z' },
    },
  ],
  [
    'Pending Upgrade that changes nothing Argo CD can see',
    { step: step('Upgrade', { fromVersion: '1.0.0' }) },
    { kind: 'act', names: 'write+refresh/progress' },
  ],
  [
    'Pending Remove, Application not read yet',
    { step: step('Remove'), intended: undefined },
    { kind: 'need', names: 'live' },
  ],
  [
    'Pending Remove, Application already gone',
    { step: step('Remove'), intended: undefined, live: 'absent' },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Removed' } },
  ],
  [
    'Pending Remove, Application there',
    { step: step('Remove'), intended: undefined, listed: ours() },
    { kind: 'act', names: 'remove/progress', state: { state: 'InProgress', reason: 'Removing' } },
  ],
  [
    'Pending Adopt, Application not read yet',
    { step: step('Adopt'), intended: undefined },
    { kind: 'need', names: 'live' },
  ],
  [
    'Pending Adopt, Application gone',
    { step: step('Adopt'), intended: undefined, live: 'absent' },
    { kind: 'fail', state: { state: 'Failed', reason: 'ApplicationMissing' } },
  ],
  [
    'Pending Adopt, Application of another runtime',
    { step: step('Adopt'), intended: undefined, listed: foreign() },
    { kind: 'act', names: 'adopt/soon', state: { state: 'InProgress', reason: 'Adopting' } },
  ],
  // In flight.
  [
    'InProgress Adopt, marks moved',
    { step: step('Adopt'), intended: undefined, state: inFlight({ reason: 'Adopting' }), listed: ours() },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Adopted', startedAt: STARTED } },
  ],
  [
    'InProgress, release missing from the plan',
    { state: inFlight(), intended: undefined },
    { kind: 'end', names: 'stall:StepUnknown' },
  ],
  [
    'InProgress being written, the listing lacks it',
    { state: inFlight({ reason: STEP_WRITING }) },
    { kind: 'act', names: 'write/progress', state: { reason: STEP_WRITING } },
  ],
  [
    'InProgress being written, the listing shows it written',
    { state: inFlight({ reason: STEP_WRITING }), listed: reported(false) },
    { kind: 'end', names: 'progress', state: { applicationUID: 'app-uid', reason: 'GateNotMet' } },
  ],
  ['InProgress, Application not listed nor read', { state: inFlight() }, { kind: 'need', names: 'live' }],
  [
    'InProgress, Argo CD reports it settled',
    { state: inFlight(), listed: reported(true) },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Done' } },
  ],
  [
    'InProgress, settled, manual and not acknowledged',
    { state: inFlight(), listed: reported(true), release: manual },
    { kind: 'end', names: 'stall:AwaitingAcknowledgement', state: { state: 'AwaitingAcknowledgement' } },
  ],
  [
    'InProgress, settled, manual and acknowledged',
    { state: inFlight(), listed: reported(true), release: manual, acknowledged: true },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Done' } },
  ],
  [
    'InProgress, not settled, in time',
    { state: inFlight(), listed: reported(false) },
    { kind: 'end', names: 'progress', state: { reason: 'GateNotMet' } },
  ],
  [
    'InProgress, not settled, late, windows not read',
    { state: inFlight({ startedAt: LATE }), listed: reported(false), syncWindow: undefined },
    { kind: 'need', names: 'syncWindow' },
  ],
  [
    'InProgress, not settled, late, a sync window holds',
    { state: inFlight({ startedAt: LATE }), listed: reported(false), syncWindow: closedWindow },
    {
      kind: 'end',
      names: 'window:holds at',
      state: { reason: 'OutsideMaintenanceWindow', timeoutFrom: '2026-12-02T10:00:00Z' },
    },
  ],
  [
    'InProgress, not settled, late',
    { state: inFlight({ startedAt: LATE }), listed: reported(false) },
    { kind: 'fail', state: { state: 'Failed', reason: 'ActionTimeout' } },
  ],
  [
    'InProgress Remove, gone',
    { step: step('Remove'), intended: undefined, state: inFlight({ reason: 'Removing' }), live: 'absent' },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Done' } },
  ],
  [
    'InProgress Remove, Argo CD deleting',
    {
      step: step('Remove'),
      intended: undefined,
      state: inFlight({ reason: 'Removing' }),
      listed: deleting(),
    },
    { kind: 'end', names: 'progress', state: { reason: 'Removing' } },
  ],
  [
    'InProgress Remove, not yet deleted',
    { step: step('Remove'), intended: undefined, state: inFlight({ reason: 'Removing' }), listed: ours() },
    { kind: 'act', names: 'remove/progress' },
  ],
  [
    'InProgress Remove, late',
    {
      step: step('Remove'),
      intended: undefined,
      state: inFlight({ reason: 'Removing', startedAt: LATE }),
      listed: ours(),
    },
    { kind: 'fail', state: { reason: 'ActionTimeout' } },
  ],
  // Waiting for a person, or ended.
  [
    'AwaitingAcknowledgement, acknowledged',
    { state: inFlight({ state: 'AwaitingAcknowledgement' }), release: manual, acknowledged: true },
    { kind: 'done', state: { state: 'Succeeded', reason: 'Acknowledged' } },
  ],
  [
    'AwaitingAcknowledgement, not yet',
    { state: inFlight({ state: 'AwaitingAcknowledgement' }), release: manual },
    { kind: 'end', names: 'stall:AwaitingAcknowledgement' },
  ],
  ['Failed', { state: inFlight({ state: 'Failed', message: 'it broke' }) }, { kind: 'fail' }],
];

for (const [name, over, expected] of ROWS) {
  test(`ROL-1 a release moves as its facts say: ${name}`, () => {
    const move = releaseMove(facts(over));
    assert.equal(move.kind, expected.kind, JSON.stringify(move));
    if (expected.names !== undefined) assert.equal(named(move), expected.names);
    const state = move.kind === 'need' ? undefined : move.state;
    for (const [key, value] of Object.entries(expected.state ?? {}))
      assert.equal(state?.[key as keyof StepState], value, `${key} of ${JSON.stringify(state)}`);
    for (const key of expected.absent ?? []) assert.equal(state?.[key], undefined, `${key} is cleared`);
  });
}

test('ROL-1 a move asks only for a fact it lacks: each need, once given, moves it on', () => {
  for (const [, over] of ROWS) {
    const first = releaseMove(facts(over));
    if (first.kind !== 'need') continue;
    const given: Over =
      first.fact === 'live'
        ? { live: 'absent' }
        : first.fact === 'syncWindow'
          ? { syncWindow: { open: true } }
          : first.fact === 'work'
            ? { work: { shown: [], count: 0, gpuNodes: 0 } }
            : { pins: { state: 'held' } };
    const next = releaseMove(facts({ ...over, ...given }));
    assert.ok(next.kind !== 'need' || next.fact !== first.fact, `${first.fact} asked again once given`);
  }
});

test('ROL-1 the failure of a Failed release says what its record said', () => {
  const move = releaseMove(facts({ state: inFlight({ state: 'Failed', message: 'it broke' }) }));
  assert.deepEqual(move.kind === 'fail' ? move.why : undefined, 'it broke');
});

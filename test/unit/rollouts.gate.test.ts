// The gate a step's Application must pass before the next step starts (ROL-1): Argo CD's report
// must be about the spec written, no older than the write, synced and healthy at the target
// versions; each way it can fall short is named, and a hand edit is told apart from waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type PlanApplication, planToApplications } from '../../shared/plans/applications.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import { gate, reportStage } from '../../shared/rollout/rules/gate.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import { sampleReleases } from '../helpers/releases.ts';

const owner = { runtimeUID: '0b6f3c1e-5d2a-4f7e-9c8b-1a2b3c4d5e6f', planDigest: planDigest(sampleReleases()) };
const apps = planToApplications(sampleReleases(), owner);
const single = apps.find((a) => a.spec.source) as PlanApplication;
const multi = apps.find((a) => a.spec.sources) as PlanApplication;
const written = new Date('2026-11-30T10:00:00.700Z');

function revisionsOf(app: PlanApplication): string[] {
  return app.spec.source ? [app.spec.source.targetRevision] : (app.spec.sources ?? []).map((s) => s.targetRevision);
}

// Test fixtures edit deep, loosely shaped JSON; a loose type keeps each edit one readable line.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** The Application as Argo CD reports it once synced and healthy at what was written. */
function reported(app: PlanApplication, edit: (status: Loose, live: Loose) => void = () => {}): GenericObject {
  const live = clone(app) as unknown as Loose;
  const revs = revisionsOf(app);
  const rev = app.spec.source ? { revision: revs[0] } : { revisions: revs };
  live['metadata'] = { ...live['metadata'], uid: 'u', resourceVersion: '1' };
  live['status'] = {
    reconciledAt: '2026-11-30T10:00:00Z',
    sync: {
      status: 'Synced',
      ...rev,
      comparedTo: clone({
        ...(app.spec.source ? { source: app.spec.source } : { sources: app.spec.sources }),
        destination: app.spec.destination,
      }),
    },
    health: { status: 'Healthy' },
    operationState: { phase: 'Succeeded', syncResult: { ...rev } },
  };
  edit(live['status'], live);
  return live as unknown as GenericObject;
}

const why = (app: PlanApplication, edit: Parameters<typeof reported>[1]): string => {
  const v = gate(reported(app, edit), app, written);
  assert.equal(v.held, false);
  return v.held ? '' : `${v.reason}: ${v.message}`;
};

test('ROL-1 the gate holds when Argo CD reports the written spec synced and healthy at the target versions, in the second of the write or later', () => {
  assert.deepEqual(gate(reported(single), single, written), { held: true });
  assert.deepEqual(gate(reported(multi), multi, written), { held: true });
});

test('ROL-1 a multi-source comparison as Argo CD v3.5.1 records it, with an empty single source beside the sources, is about the spec written', () => {
  assert.deepEqual(
    gate(
      reported(multi, (s) => (s.sync.comparedTo.source = { repoURL: '' })),
      multi,
      written,
    ),
    { held: true },
  );
  assert.match(
    why(multi, (s) => (s.sync.comparedTo.source = { repoURL: 'elsewhere' })),
    /^GateNotMet: Argo CD has not yet compared the spec written/,
  );
});

test('ROL-1 Argo CD v3.5.1 drops null values from valuesObject in what it records as compared; that is still the spec written', () => {
  const withNull = clone(single) as unknown as Loose;
  withNull['spec'].source.helm = {
    releaseName: 'r',
    valuesObject: { controller: { affinity: { nodeAffinity: null }, replicas: 1 } },
  };
  const intended = withNull as unknown as PlanApplication;
  const live = reported(
    intended,
    (s) => (s.sync.comparedTo.source.helm.valuesObject = { controller: { affinity: {}, replicas: 1 } }),
  );
  assert.deepEqual(gate(live, intended, written), { held: true });
  const other = reported(
    intended,
    (s) => (s.sync.comparedTo.source.helm.valuesObject = { controller: { affinity: {}, replicas: 2 } }),
  );
  assert.equal(gate(other, intended, written).held, false, 'another value is another spec');
});

test('ROL-1 a report older than the write, or about another spec, does not count', () => {
  assert.match(
    why(single, (s) => (s.reconciledAt = '2026-11-30T09:59:59Z')),
    /^GateNotMet: .*older than the write/,
  );
  assert.match(
    why(single, (s) => (s.sync.comparedTo.source.targetRevision = '0.0.1')),
    /^GateNotMet: Argo CD has not yet compared the spec written/,
  );
});

test('ROL-1 synced and healthy at a previous version blocks the step', () => {
  assert.match(
    why(single, (s) => ((s.sync.revision = '0.0.1'), (s.operationState.syncResult.revision = '0.0.1'))),
    /^GateNotMet: .*synced at 0\.0\.1 .*not at /,
  );
  assert.match(
    why(
      multi,
      (s) => ((s.sync.revisions = ['0.0.1', '0.0.2']), (s.operationState.syncResult.revisions = ['0.0.1', '0.0.2'])),
    ),
    /synced at 0\.0\.1, 0\.0\.2 \(last sync 0\.0\.1, 0\.0\.2\)/,
  );
});

test('ROL-1 a version bump whose manifests render the same holds: Argo CD compares it Synced at the new version and runs no sync, so its last operation names the old one', () => {
  assert.deepEqual(
    gate(
      reported(single, (s) => (s.operationState.syncResult.revision = '0.0.1')),
      single,
      written,
    ),
    { held: true },
  );
  assert.deepEqual(
    gate(
      reported(multi, (s) => (s.operationState.syncResult.revisions = ['0.0.1', '0.0.2'])),
      multi,
      written,
    ),
    { held: true },
  );
});

test('ROL-1 an Application Argo CD never had to sync (its resources were already live) holds once compared Synced and healthy', () => {
  assert.deepEqual(
    gate(
      reported(multi, (s) => delete s.operationState),
      multi,
      written,
    ),
    { held: true },
  );
  assert.match(
    why(multi, (s) => ((s.sync.status = 'OutOfSync'), delete s.operationState)),
    /^GateNotMet: .*OutOfSync/,
  );
  assert.match(
    why(multi, (s) => (s.operationState.phase = 'Running')),
    /^GateNotMet: Argo CD is syncing .*Running/,
  );
});

test('each unmet part is named: comparison error, sync running or failed, out of sync, degraded, progressing', () => {
  assert.match(
    why(single, (s) => (s.conditions = [{ type: 'ComparisonError', message: 'chart not found' }])),
    /^ComparisonError: .*chart not found/,
  );
  assert.match(
    why(single, (_s, live) => (live['operation'] = { sync: {} })),
    /^GateNotMet: Argo CD is syncing/,
  );
  assert.match(
    why(single, (s) => ((s.operationState.phase = 'Failed'), (s.operationState.message = 'hook failed'))),
    /^SyncFailed: .*ended Failed: hook failed/,
  );
  assert.match(
    why(single, (s) => (s.sync.status = 'OutOfSync')),
    /^GateNotMet: .*OutOfSync/,
  );
  assert.match(
    why(single, (s) => (s.health = { status: 'Degraded', message: 'crash loop' })),
    /^Degraded: .*Degraded: crash loop/,
  );
  assert.match(
    why(single, (s) => (s.health = { status: 'Progressing' })),
    /^GateNotMet: .*Progressing/,
  );
});

test('an Application edited or deleted since the write is told apart from one Argo CD has not reported on', () => {
  const edited = gate(
    reported(single, (_s, live) => (live['spec'].source.targetRevision = '9.9.9')),
    single,
    written,
  );
  assert.equal(edited.held ? '' : edited.reason, 'SpecDrifted');
  const gone = gate(undefined, single, written);
  assert.equal(gone.held ? '' : gone.reason, 'ApplicationMissing');
  const policy = gate(
    reported(single, (_s, live) => (live['spec'].syncPolicy = {})),
    single,
    written,
  );
  assert.equal(policy.held, true, 'a sync policy change is not an edit of what the step decides');
});

test("an Application its AppProject refuses (InvalidSpecError) is named as refused, with Argo CD's message; a project edit since the write is SpecDrifted", () => {
  const refused = why(
    single,
    (s) =>
      (s.conditions = [
        {
          type: 'InvalidSpecError',
          message: "application repo registry.example/aicr is not permitted in project 'aicr'",
        },
      ]),
  );
  assert.match(refused, /^SpecRefused: Argo CD refuses Application .*not permitted in project 'aicr'.*AppProject/);
  const moved = gate(
    reported(single, (_s, live) => (live['spec'].project = 'other')),
    single,
    written,
  );
  assert.equal(moved.held ? '' : moved.reason, 'SpecDrifted');
});

test("the report's stage, read from the Application alone, moves only where a step's verdict can: settled, failed, degraded, refused; Argo CD's writes while it compares and syncs all read waiting", () => {
  const stage = (app: PlanApplication, edit?: Parameters<typeof reported>[1]): string =>
    reportStage(reported(app, edit));
  assert.equal(stage(single), 'settled');
  assert.equal(
    stage(multi, (s) => delete s.operationState),
    'settled',
    'never synced, already live',
  );
  const waiting: Parameters<typeof reported>[1][] = [
    (s) => (s.sync.comparedTo.source.targetRevision = '0.0.1'),
    (_s, live) => (live['operation'] = { sync: {} }),
    (s) => (s.operationState.phase = 'Running'),
    (s) => (s.sync.status = 'OutOfSync'),
    (s) => (s.health = { status: 'Progressing' }),
    (s) => (s.health = { status: 'Missing' }),
  ];
  for (const edit of waiting) assert.equal(stage(single, edit), 'waiting', String(edit));
  assert.equal(
    stage(single, (s) => (s.reconciledAt = '2026-11-30T11:00:00Z')),
    'settled',
    'a later report alone is no new stage',
  );
  assert.equal(
    stage(single, (s) => (s.operationState.phase = 'Error')),
    'sync-failed',
  );
  assert.equal(
    stage(single, (s) => (s.health = { status: 'Degraded' })),
    'degraded',
  );
  assert.equal(
    stage(single, (s) => (s.conditions = [{ type: 'ComparisonError', message: 'chart not found' }])),
    'comparison-error',
  );
  assert.equal(
    stage(single, (s) => (s.conditions = [{ type: 'InvalidSpecError', message: 'not permitted' }])),
    'refused',
  );
  // The stage is the gate's own verdict: a failure or Degraded before Argo CD has compared the
  // spec, or while a sync runs, is a verdict of waiting, so it reads waiting too.
  assert.equal(
    stage(single, (s) => {
      s.health = { status: 'Degraded' };
      s.sync.comparedTo.source.targetRevision = '0.0.1';
    }),
    'waiting',
  );
  assert.equal(
    stage(single, (s, live) => {
      s.health = { status: 'Degraded' };
      live['operation'] = { sync: {} };
    }),
    'waiting',
  );
  assert.equal(
    stage(single, (s) => (s.sync.revision = '0.0.1')),
    'waiting',
    'synced at other revisions than the spec asks',
  );
  // Every verdict the gate can give on a report is told apart from a settled one by its stage.
  for (const edit of [
    ...waiting,
    (s: Loose) => (s.health = { status: 'Degraded' }),
    (s: Loose) => (s.operationState.phase = 'Failed'),
  ]) {
    assert.equal(gate(reported(single, edit), single, written).held, false);
  }
});

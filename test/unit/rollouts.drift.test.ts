// Inventory drift during a rollout (ROL-2), as a pure comparison: each kind of change is named,
// sync policy and status are not compared, the release in flight is left to the gate, and a
// release the rollout wrote is compared with what it wrote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION } from '../../shared/api/constants.ts';
import type { RolloutStep } from '../../shared/api/runtimeRollout.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import { type PlanApplication, planToApplications } from '../../shared/plans/applications.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import type { Release } from '../../shared/plans/release.ts';
import { type DriftFacts, inventoryChanges, inventoryEntries } from '../../shared/rollout/rules/drift.ts';
import { STEP_WRITING, type StepState } from '../../shared/rollout/rules/progress.ts';

const UID = '0b6f3c1e-5d2a-4f7e-9c8b-1a2b3c4d5e6f';
const rel = (name: string, order: number, version: string): Release => ({
  name,
  namespace: `ns-${name}`,
  order,
  chart: { repoURL: 'registry.test/charts', chart: name, version },
  values: { a: 1 },
  dependsOn: [],
  manual: false,
  steps: [],
});
const from = [rel('alpha', 0, '1.0.0'), rel('bravo', 1, '1.0.0')];
const to = [rel('alpha', 0, '1.1.0'), rel('bravo', 1, '1.1.0')];
const fromDigest = planDigest(from);
const toDigest = planDigest(to);

function live(apps: readonly PlanApplication[]): GenericObject[] {
  return apps.map((a) => ({
    ...(JSON.parse(JSON.stringify(a)) as GenericObject),
    metadata: { ...a.metadata, uid: `uid-${a.metadata.name}`, resourceVersion: '1' },
  }));
}
const before = (): GenericObject[] => live(planToApplications(from, { runtimeUID: UID, planDigest: fromDigest }));
const intended = new Map(
  planToApplications(to, { runtimeUID: UID, planDigest: toDigest }).map((a) => [a.metadata.name, a]),
);
const steps: RolloutStep[] = [
  { release: 'alpha', action: 'Upgrade' },
  { release: 'bravo', action: 'Upgrade' },
];
const pending: StepState[] = [
  { release: 'alpha', state: 'Pending' },
  { release: 'bravo', state: 'Pending' },
];

function facts(now: GenericObject[], states: StepState[] = pending): DriftFacts {
  return { recorded: inventoryEntries(before()), live: now, steps, states, intended, targetDigest: toDigest };
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const spec = (a: GenericObject): Record<string, any> => (a as unknown as { spec: Record<string, unknown> }).spec;

test('ROL-2 nothing changed, or only sync policy and status: no drift', () => {
  const now = before();
  const a = now[0];
  assert.ok(a);
  spec(a)['syncPolicy'] = {};
  (a as unknown as { status: unknown }).status = { sync: { status: 'OutOfSync' } };
  assert.deepEqual(inventoryChanges(facts(now)), []);
});

test('ROL-2 each change is named: disappeared, appeared, recreated, at another plan, edited', () => {
  const [alpha, bravo] = before();
  assert.ok(alpha && bravo);
  const extra = { ...structuredClone(bravo), metadata: { ...bravo.metadata, name: 'charlie', uid: 'uid-charlie' } };
  assert.deepEqual(inventoryChanges(facts([alpha, extra])), [
    'Application bravo disappeared',
    'Application charlie appeared',
  ]);
  assert.deepEqual(inventoryChanges(facts([{ ...alpha, metadata: { ...alpha.metadata, uid: 'other' } }, bravo])), [
    'Application alpha was recreated',
  ]);
  const moved = {
    ...alpha,
    metadata: { ...alpha.metadata, annotations: { ...alpha.metadata.annotations, [ANNOTATION.planDigest]: toDigest } },
  };
  assert.match(
    inventoryChanges(facts([moved, bravo]))[0] ?? '',
    /^Application alpha is at plan aicr-plan-[0-9a-f]{16}, not aicr-plan-/,
  );
  const edited = structuredClone(bravo);
  spec(edited)['source']['helm']['valuesObject'] = { a: 2 };
  assert.deepEqual(inventoryChanges(facts([alpha, edited])), [
    'Application bravo was edited (its source, Helm values or destination)',
  ]);
  const elsewhere = structuredClone(bravo);
  spec(elsewhere)['destination']['namespace'] = 'other';
  assert.equal(inventoryChanges(facts([alpha, elsewhere])).length, 1);
});

test('ROL-2 a written release is compared with what the rollout wrote; the release in flight is left to the gate', () => {
  const [, bravo] = before();
  assert.ok(bravo);
  const wrote = live([intended.get('alpha') as PlanApplication])[0] as GenericObject;
  const done: StepState[] = [
    { release: 'alpha', state: 'Succeeded', startedAt: '2026-11-30T10:00:00Z', applicationUID: 'uid-alpha' },
    { release: 'bravo', state: 'Pending' },
  ];
  assert.deepEqual(inventoryChanges(facts([wrote, bravo], done)), []);
  const edited = structuredClone(wrote);
  spec(edited)['source']['targetRevision'] = '9.9.9';
  assert.deepEqual(inventoryChanges(facts([edited, bravo], done)), [
    'Application alpha was edited (its source, Helm values or destination)',
  ]);
  const inFlight: StepState[] = [
    { release: 'alpha', state: 'InProgress', startedAt: '2026-11-30T10:00:00Z' },
    { release: 'bravo', state: 'Pending' },
  ];
  assert.deepEqual(
    inventoryChanges(facts([edited, bravo], inFlight)),
    [],
    "an edit of the release in flight is its step's SpecDrifted",
  );
  assert.deepEqual(
    inventoryChanges(facts([bravo], inFlight)),
    ['Application alpha disappeared'],
    'its deletion is drift',
  );
  assert.deepEqual(
    inventoryChanges({ ...facts([bravo], done), recorded: undefined }),
    [],
    'a rollout without a recorded inventory is not compared',
  );
});

test('ROL-2 an Application moved to another Argo CD project is drift; an inventory recorded without projects does not compare them', () => {
  const [alpha, bravo] = before();
  assert.ok(alpha && bravo);
  const moved = structuredClone(bravo);
  spec(moved)['project'] = 'elsewhere';
  assert.deepEqual(inventoryChanges(facts([alpha, moved])), [
    `Application bravo moved to Argo CD project elsewhere, not ${String(spec(bravo)['project'])}`,
  ]);
  const older = {
    ...facts([alpha, moved]),
    recorded: inventoryEntries(before()).map((e) => ({ name: e.name, uid: e.uid, plan: e.plan, release: e.release })),
  };
  assert.deepEqual(inventoryChanges(older), [], 'entries an older control plane recorded carry no project');
  const wrote = live([intended.get('alpha') as PlanApplication])[0] as GenericObject;
  spec(wrote)['project'] = 'elsewhere';
  const done: StepState[] = [
    { release: 'alpha', state: 'Succeeded', startedAt: '2026-11-30T10:00:00Z', applicationUID: 'uid-alpha' },
    { release: 'bravo', state: 'Pending' },
  ];
  assert.match(
    inventoryChanges(facts([wrote, bravo], done))[0] ?? '',
    /^Application alpha moved to Argo CD project elsewhere/,
  );
});

test('FLT-1 ROL-2 a step recorded just before its write (a crash may have come either side of it) expects its Application as before the write or as written, and nothing else', () => {
  const writing: StepState[] = [
    { release: 'alpha', state: 'InProgress', startedAt: '2026-12-03T08:00:00Z', reason: STEP_WRITING },
    { release: 'bravo', state: 'Pending' },
  ];
  const [alpha, bravo] = before();
  assert.ok(alpha && bravo);
  assert.deepEqual(inventoryChanges(facts([alpha, bravo], writing)), [], 'not yet written: as recorded at creation');
  const written = live([intended.get('alpha') as PlanApplication])[0];
  assert.ok(written);
  assert.deepEqual(
    inventoryChanges(facts([{ ...written, metadata: { ...written.metadata, uid: 'uid-new' } }, bravo], writing)),
    [],
    'written: at the target plan, whatever its UID',
  );
  assert.deepEqual(
    inventoryChanges(facts([bravo], writing)),
    ['Application alpha disappeared'],
    'an upgrade whose Application is gone is drift',
  );
  const elsewhere = {
    ...alpha,
    metadata: {
      ...alpha.metadata,
      annotations: { ...alpha.metadata.annotations, [ANNOTATION.planDigest]: planDigest([rel('alpha', 0, '9.9.9')]) },
    },
  };
  assert.match(
    inventoryChanges(facts([elsewhere, bravo], writing))[0] ?? '',
    /^Application alpha is at plan aicr-plan-[0-9a-f]{16}, not aicr-plan-/,
  );
});

// The drift check's pure decisions: which missing releases are written again and which are left
// to a person (ROL-8, ROL-5), which objects are of a newer schema (PLAN-2), and the periodic look.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL } from '../../shared/api/constants.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import type { Release } from '../../shared/plans/release.ts';
import { missingReleases, rolloutInProgress } from '../../shared/rollout/rules/missingReleases.ts';
import type { RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { isNewerSchema, newerObjects } from '../../shared/rollout/rules/schemaVersions.ts';
import { nextLook } from '../../shared/steps/driftCheck/report.ts';
import type { StepContext } from '../../shared/look/contract.ts';

const release = (name: string, order: number): Release => ({
  name,
  namespace: `ns-${name}`,
  order,
  chart: { repoURL: 'r.example/charts', chart: name, version: '1.0.0' },
  values: {},
  dependsOn: [],
  manual: false,
  steps: [],
});
const app = (name: string): GenericObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, uid: `uid-${name}`, resourceVersion: '1' },
});
const ACTIVE = [release('alpha', 0), release('bravo', 1), release('charlie', 2)];

function rolloutOf(
  outcome: string | undefined,
  steps: { release: string; action: string; started: boolean }[],
): RolloutObject {
  return {
    metadata: { name: 'aicr-rollout-x', uid: 'u' },
    spec: {
      runtimeUID: 'rt',
      type: 'Upgrade',
      toPlan: 'aicr-plan-b',
      steps: steps.map((s) => ({ release: s.release, action: s.action })),
      inventory: 'sha256:x',
      deadline: '2026-01-01T00:00:00Z',
    },
    status: {
      ...(outcome ? { outcome } : {}),
      steps: steps.map((s) => ({
        release: s.release,
        state: s.started ? 'Failed' : 'Pending',
        ...(s.started ? { startedAt: '2026-01-01T00:00:00Z' } : {}),
      })),
    },
  } as unknown as RolloutObject;
}

test('ROL-8 a release of the active plan without its Application is written again when no unsuccessful rollout moved it', () => {
  const missing = missingReleases([app('alpha'), app('charlie')], ACTIVE, []);
  assert.deepEqual(
    missing.recreate.map((r) => r.name),
    ['bravo'],
  );
  assert.deepEqual(missing.moved, []);
  const afterSuccess = missingReleases([app('alpha')], ACTIVE, [
    rolloutOf('Succeeded', [{ release: 'bravo', action: 'Upgrade', started: true }]),
  ]);
  assert.deepEqual(
    afterSuccess.recreate.map((r) => r.name),
    ['bravo', 'charlie'],
    'a rollout that succeeded moved nothing away from the active plan',
  );
});

test('ROL-5 a missing release the last unsuccessful rollout started is reported, not written; one it removed stays removed', () => {
  const failed = rolloutOf('Failed', [
    { release: 'alpha', action: 'Upgrade', started: true },
    { release: 'bravo', action: 'Remove', started: true },
    { release: 'charlie', action: 'Upgrade', started: false },
  ]);
  const missing = missingReleases([], ACTIVE, [failed]);
  assert.deepEqual(missing.moved, [{ release: 'alpha', rollout: 'aicr-rollout-x', plan: 'aicr-plan-b' }]);
  assert.deepEqual(
    missing.recreate.map((r) => r.name),
    ['charlie'],
    'never started: still at the active plan',
  );
  assert.equal(rolloutInProgress([failed]), undefined);
  assert.equal(rolloutInProgress([rolloutOf(undefined, [])])?.metadata.name, 'aicr-rollout-x');
});

test("PLAN-2 only a schema label above this control plane's is newer; a missing or malformed one is not", () => {
  assert.equal(isNewerSchema('2', '1'), true);
  for (const v of [undefined, '1', '0', 'v2', '', '01']) assert.equal(isNewerSchema(v, '1'), false, String(v));
  const labelled = (name: string, version?: string) => ({
    metadata: { name, labels: version ? { [LABEL.schemaVersion]: version } : {} },
  });
  assert.deepEqual(
    newerObjects([labelled('r1'), labelled('r2', '3')], [labelled('aicr-plan-a', '1'), labelled('aicr-plan-b', '2')]),
    [
      'rollout r2 (schema version "3", this control plane reads "1")',
      'plan aicr-plan-b (schema version "2", this control plane reads "1")',
    ],
  );
});

test('the periodic look is due at the next slot of drift.checkInterval, one timer per slot', () => {
  const configuration = ConfigurationSchema.parse({});
  assert.equal(configuration.drift.checkInterval, '5m');
  const at = (iso: string) => nextLook({ now: () => new Date(iso) } as unknown as StepContext, configuration);
  const a = at('2026-12-01T04:01:10Z');
  const b = at('2026-12-01T04:04:59Z');
  assert.equal(a.recheckKey, b.recheckKey, 'runs in one slot arm the same timer');
  assert.equal(a.recheckKey, 'drift-2026-12-01T04:05:00.000Z');
  assert.equal(a.recheckAfterMs, 230_000);
  assert.ok(!ConfigurationSchema.safeParse({ drift: { checkInterval: 'soon' } }).success, 'a bad interval is refused');
});

// The assessment of a move from what the owned Applications carry to the target plan (TRN-1),
// and the control plane's verdict on a recorded approval (APR-2), without a cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Release } from '../../shared/plans/release.ts';
import { assess, changedValuePaths, dependencyCycle, type Assessor } from '../../shared/rollout/rules/assess.ts';
import { judgeApproval, REFUSAL } from '../../shared/rollout/rules/approval.ts';
import type { RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';

const UNKNOWN_JUDGEMENT = { verdict: 'unknown', why: 'AICR v0.11.1 has no upgrade-check' } as const;
const UNKNOWN: Assessor = () => UNKNOWN_JUDGEMENT;

function release(name: string, order: number, over: Partial<Release> = {}): Release {
  return {
    name,
    namespace: name,
    order,
    chart: { repoURL: 'registry.example/charts', chart: name, version: '1.0.0' },
    values: {},
    dependsOn: [],
    manual: false,
    steps: [],
    ...over,
  };
}

test('TRN-1 on a fresh cluster every target release is an Install, in deployment order, each unknown with the reason', () => {
  const a = assess(new Map(), [release('b', 1), release('a', 0)], UNKNOWN);
  assert.ok(a.ok);
  assert.deepEqual(
    a.steps.map((s) => [s.release, s.action, s.verdict, s.why]),
    [
      ['a', 'Install', 'unknown', UNKNOWN_JUDGEMENT.why],
      ['b', 'Install', 'unknown', UNKNOWN_JUDGEMENT.why],
    ],
  );
  assert.equal(a.steps[0]?.toVersion, '1.0.0');
});

test('TRN-1 unchanged releases need no step; a changed one upgrades with its version and value paths; one the plan lacks is removed last', () => {
  const now = new Map([
    ['a', release('a', 0)],
    ['b', release('b', 1, { values: { image: { tag: 'v1' }, keep: 1 } })],
    ['old', release('old', 2)],
  ]);
  const b = release('b', 1, {
    values: { image: { tag: 'v2' }, keep: 1, added: true },
    chart: { repoURL: 'registry.example/charts', chart: 'b', version: '1.1.0' },
  });
  const a = assess(now, [release('a', 0), b], UNKNOWN);
  assert.ok(a.ok);
  assert.deepEqual(
    a.steps.map((s) => [s.release, s.action]),
    [
      ['b', 'Upgrade'],
      ['old', 'Remove'],
    ],
  );
  assert.deepEqual(
    [a.steps[0]?.fromVersion, a.steps[0]?.toVersion, a.steps[0]?.valuesChanged, a.steps[0]?.valuesChangedCount],
    ['1.0.0', '1.1.0', ['added', 'image.tag'], 2],
  );
});

test('TRN-1 a release that would change namespace or chart name is blocked, naming it and why', () => {
  const now = new Map([
    ['a', release('a', 0)],
    ['b', release('b', 1)],
  ]);
  const target = [
    release('a', 0, { namespace: 'elsewhere' }),
    release('b', 1, { chart: { repoURL: 'registry.example/charts', chart: 'b2', version: '1.0.0' } }),
  ];
  const a = assess(now, target, UNKNOWN);
  assert.ok(!a.ok);
  assert.deepEqual(a.blocked, [
    { release: 'a', why: 'it would move from namespace a to elsewhere' },
    { release: 'b', why: 'its chart would change from b to b2' },
  ]);
});

test('TRN-1 an Application that does not read back counts as changed, never as unchanged', () => {
  const a = assess(new Map([['a', undefined]]), [release('a', 0)], UNKNOWN);
  assert.ok(a.ok);
  assert.deepEqual(
    a.steps.map((s) => s.action),
    ['Install'],
  );
});

test('a dependency cycle among releases is found and named; none in a proper order', () => {
  assert.equal(
    dependencyCycle([release('a', 0, { dependsOn: ['b'] }), release('b', 1, { dependsOn: ['a'] })]),
    'a → b → a',
  );
  assert.equal(dependencyCycle([release('a', 0), release('b', 1, { dependsOn: ['a'] })]), undefined);
  assert.deepEqual(changedValuePaths({ x: {} }, { x: {} }), []);
});

function rollout(over: Partial<RolloutObject['spec']> = {}, status?: RolloutObject['status']): RolloutObject {
  return {
    metadata: { name: 'aicr-rollout-x', uid: 'u', resourceVersion: '1' },
    spec: {
      runtimeUID: '00000000-0000-0000-0000-000000000000',
      type: 'Upgrade',
      toPlan: 'aicr-plan-0123456789abcdef',
      steps: [],
      inventory: 'sha256:a',
      deadline: '2026-01-01T01:00:00Z',
      ...over,
    },
    ...(status ? { status } : {}),
  };
}
const approval = (at: string) => ({ approvedBy: 'alice', approvedAt: at });

test('APR-2 an approval is accepted, or refused as late, after drift since creation, or with stale registry credentials', () => {
  assert.equal(judgeApproval({ rollout: rollout(), inventory: 'sha256:a' }).state, 'none');
  assert.equal(
    judgeApproval({ rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }), inventory: 'sha256:a' }).state,
    'Accepted',
  );
  const late = judgeApproval({
    rollout: rollout({ approval: approval('2026-01-01T02:00:00Z') }),
    inventory: 'sha256:a',
  });
  assert.ok(late.state === 'Refused' && late.reason === REFUSAL.expired && !late.supersede, JSON.stringify(late));
  const drift = judgeApproval({
    rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }),
    inventory: 'sha256:b',
  });
  assert.ok(
    drift.state === 'Refused' &&
      drift.reason === REFUSAL.drift &&
      drift.supersede &&
      /drift since creation/.test(drift.message),
    JSON.stringify(drift),
  );
  const stale = judgeApproval({
    rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }),
    inventory: 'sha256:a',
    staleCredentials: 'token expires within an hour',
  });
  assert.ok(stale.state === 'Refused' && stale.reason === REFUSAL.staleCredentials, JSON.stringify(stale));
});

test('APR-2 ENG-2 an approval recorded while an engine suspension is refused is refused with EngineSuspensionRefused, saying why and what to do; accepted once the switch succeeds', () => {
  const why =
    'the API server refused for good to turn automated sync off for spec.suspendEngine: Application bravo in argocd';
  const refused = judgeApproval({
    rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }),
    inventory: 'sha256:a',
    suspensionRefused: why,
  });
  assert.ok(
    refused.state === 'Refused' && refused.reason === 'EngineSuspensionRefused' && !refused.supersede,
    JSON.stringify(refused),
  );
  assert.equal(
    refused.message,
    `no new rollout starts while the engine suspension is refused (${why}); approve again once automated sync is in the state spec.suspendEngine declares`,
  );
  assert.equal(
    judgeApproval({
      rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }),
      inventory: 'sha256:a',
      suspensionRefused: undefined,
    }).state,
    'Accepted',
  );
});

test('APR-2 an approval already accepted stays accepted when the same approval is seen again', () => {
  const given = {
    state: 'Accepted' as const,
    approvedBy: 'alice',
    approvedAt: '2026-01-01T00:30:00Z',
    reason: 'Approved',
    message: 'approved by alice',
  };
  const j = judgeApproval({
    rollout: rollout({ approval: approval('2026-01-01T00:30:00Z') }, { approval: given }),
    inventory: 'sha256:changed',
  });
  assert.equal(j.state, 'Accepted');
});

test('ROL-6 a release whose Application carries the target but whose last step to that target never finished is a step again, saying why', () => {
  const now = new Map([
    ['a', release('a', 0)],
    ['b', release('b', 1)],
  ]);
  const a = assess(now, [release('a', 0), release('b', 1)], UNKNOWN, new Set(['b']));
  assert.ok(a.ok);
  assert.deepEqual(
    a.steps.map((s) => [s.release, s.action, s.fromVersion, s.toVersion, s.valuesChanged]),
    [['b', 'Upgrade', '1.0.0', '1.0.0', undefined]],
  );
  assert.match(
    a.steps[0]?.why ?? '',
    /already carries the target release, but its step in the last rollout to this plan never finished.*AICR v0\.11\.1 has no upgrade-check/,
  );
  const moved = assess(now, [release('a', 0), release('b', 1)], UNKNOWN);
  assert.ok(moved.ok);
  assert.deepEqual(moved.steps, [], 'without the unfinished step both count as moved');
});

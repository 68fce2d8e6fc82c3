// COND-1 / COND-2: Ready, Reconciling and Stalled derived from the domain conditions, as a table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../shared/api/condition.ts';
import { summarize } from '../../shared/status/summarize.ts';

const T = '2026-11-30T10:00:00Z';
const c = (type: string, status: Condition['status'], reason: string, message = `${type} ${reason}`): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: T,
  observedGeneration: 2,
});
const old = (x: Condition): Condition => ({ ...x, observedGeneration: 1 });

type Row = [
  name: string,
  conditions: Condition[],
  expected: string[],
  want: { Ready: string; Reconciling: string; Stalled: string; reason: string },
];

const rows: Row[] = [
  [
    'nothing reported yet',
    [],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'False', reason: 'AwaitingFirstReport' },
  ],
  [
    'resolving',
    [c('Resolved', 'False', 'Resolving')],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'False', reason: 'Resolving' },
  ],
  [
    'COND-2 invalid spec stalls with the same reason',
    [c('Resolved', 'False', 'InvalidSpec')],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'False', Stalled: 'True', reason: 'InvalidSpec' },
  ],
  [
    'COND-2 a reason outside the table stalls too',
    [c('Resolved', 'False', 'SomethingNew')],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'False', Stalled: 'True', reason: 'SomethingNew' },
  ],
  [
    'a stall that retries by itself keeps Reconciling',
    [c('Resolved', 'False', 'RegistryCredentialsUnavailable')],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'True', reason: 'RegistryCredentialsUnavailable' },
  ],
  [
    'all True is Ready',
    [c('Resolved', 'True', 'Resolved'), c('EngineAvailable', 'True', 'EngineReady')],
    ['Resolved', 'EngineAvailable'],
    { Ready: 'True', Reconciling: 'False', Stalled: 'False', reason: 'Ready' },
  ],
  [
    'a True condition of an older generation is still reconciling',
    [old(c('Resolved', 'True', 'Resolved'))],
    ['Resolved'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'False', reason: 'NewGeneration' },
  ],
  [
    'a later stall wins over an earlier progressing condition',
    [c('Resolved', 'False', 'Resolving'), c('EngineAvailable', 'False', 'RegistryCredentialsStale')],
    ['Resolved', 'EngineAvailable'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'True', reason: 'RegistryCredentialsStale' },
  ],
  [
    'an expected condition nobody wrote yet keeps Ready False',
    [c('Resolved', 'True', 'Resolved')],
    ['Resolved', 'Released'],
    { Ready: 'False', Reconciling: 'True', Stalled: 'False', reason: 'AwaitingFirstReport' },
  ],
  [
    'a condition no step owns today is not waited for',
    [c('Resolved', 'True', 'Resolved')],
    ['Resolved'],
    { Ready: 'True', Reconciling: 'False', Stalled: 'False', reason: 'Ready' },
  ],
  [
    'the earliest domain condition explains the runtime',
    [c('Released', 'False', 'AwaitingApproval'), c('Resolved', 'False', 'InvalidSpec')],
    ['Resolved', 'Released'],
    { Ready: 'False', Reconciling: 'False', Stalled: 'True', reason: 'InvalidSpec' },
  ],
];

for (const [name, conditions, expected, want] of rows) {
  test(`summarize: ${name}`, () => {
    const out = summarize({ conditions, generation: 2, expected: expected as never });
    const by = Object.fromEntries(out.map((x) => [x.type, x]));
    assert.deepEqual(out.map((x) => x.type).sort(), ['Ready', 'Reconciling', 'Stalled']);
    assert.equal(by['Ready']?.status, want.Ready);
    assert.equal(by['Reconciling']?.status, want.Reconciling);
    assert.equal(by['Stalled']?.status, want.Stalled);
    assert.equal(by['Ready']?.reason, want.reason);
    if (want.Stalled === 'True') {
      const cause = conditions.find((x) => x.reason === want.reason);
      assert.equal(by['Stalled']?.reason, want.reason, 'Stalled carries the same reason');
      assert.equal(by['Stalled']?.message, cause?.message, 'and the same message');
    }
  });
}

test('summarize: a condition moving through its work (a rollout step by step) leaves the summary as it was, so the runtime is written once per move, not twice', () => {
  const at = (step: number): ReturnType<typeof summarize> =>
    summarize({
      conditions: [
        c('Resolved', 'True', 'Resolved'),
        c('Released', 'False', 'RolloutProgressing', `rollout r-1: step ${step} of 50, Install bench-${step}`),
      ],
      generation: 2,
      expected: ['Resolved', 'Released'],
    });
  assert.deepEqual(at(3), at(4));
  const ready = at(3).find((x) => x.type === 'Ready');
  assert.equal(ready?.reason, 'RolloutProgressing');
  assert.match(ready?.message ?? '', /Released is False with RolloutProgressing/);
});

// What `kubectl aicr revoke`, `kubectl aicr retry` and describe say about a person's requests on a
// rollout, from sample objects: which rollouts each may be asked of (and why not), which rollout
// answers a retry, and how describe shows a revocation, a retry and the reason a rollout ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newRolloutOf, retriedText, retryProblem } from '../../cli/retry.ts';
import { revokeProblem } from '../../cli/revoke.ts';
import { describeRollout } from '../../cli/rolloutView.ts';
import { type RolloutObject, parseRollout } from '../../shared/rollout/rules/rolloutObject.ts';

const UID = '5c9a1f3e-0000-4000-8000-000000000001';
const TO = 'aicr-plan-0123456789abcdef';

function sample(
  name: string,
  spec: Record<string, unknown> = {},
  status: Record<string, unknown> = {},
  created = '2026-11-30T10:00:00Z',
): RolloutObject {
  const r = parseRollout({
    metadata: { name, uid: '0f0e0d0c-0000-4000-8000-000000000002', resourceVersion: '7', creationTimestamp: created },
    spec: {
      runtimeUID: UID,
      type: 'Upgrade',
      toPlan: TO,
      steps: [{ release: 'alpha', action: 'Upgrade', verdict: 'unknown' }],
      ...spec,
    },
    status,
  });
  assert.ok(r, 'the sample fits the schema');
  return r;
}

const ended = (outcome: string, reason: string) => ({
  outcome,
  conditions: [
    {
      type: 'Ready',
      status: 'False',
      reason,
      message: `it ended ${outcome}`,
      lastTransitionTime: '2026-11-30T10:05:00Z',
    },
  ],
});

test('ROL-6 revoke is asked only of a rollout that has not ended and was not revoked yet, saying why not', () => {
  assert.equal(revokeProblem(sample('r1')), undefined);
  assert.match(
    revokeProblem(sample('r1', {}, ended('Failed', 'RolloutFailed'))) ?? '',
    /rollout r1 has ended Failed; there is nothing to revoke/,
  );
  assert.match(
    revokeProblem(sample('r1', { revocation: { revokedBy: 'alice', revokedAt: '2026-11-30T10:03:00Z' } })) ?? '',
    /already revoked by alice at 2026-11-30T10:03:00Z/,
  );
});

test('ROL-6 retry is asked of a rollout that has not ended or ended Failed, Expired or Revoked, once', () => {
  assert.equal(retryProblem(sample('r1')), undefined);
  for (const [o, why] of [
    ['Failed', 'RolloutFailed'],
    ['Expired', 'RolloutExpired'],
    ['Revoked', 'RolloutRevoked'],
  ] as const)
    assert.equal(retryProblem(sample('r1', {}, ended(o, why))), undefined, o);
  for (const o of ['Succeeded', 'Superseded'])
    assert.match(
      retryProblem(sample('r1', {}, ended(o, o))) ?? '',
      new RegExp(`rollout r1 ended ${o}, which is not retried; .*Change the target plan`),
    );
  assert.match(
    retryProblem(sample('r1', { retry: { requestedBy: 'alice', requestedAt: '2026-11-30T10:03:00Z' } })) ?? '',
    /already requested by alice/,
  );
});

test('ROL-6 the rollout answering a retry is a newer one to the same target of the same runtime', () => {
  const old = sample('r1', {}, ended('Failed', 'RolloutFailed'));
  const other = sample('r0', { toPlan: 'aicr-plan-aaaaaaaaaaaaaaaa' }, {}, '2026-11-30T10:06:00Z');
  const earlier = sample('r-1', {}, ended('Expired', 'RolloutExpired'), '2026-11-29T10:00:00Z');
  assert.equal(newRolloutOf(old, '2026-11-30T10:05:00Z', [earlier, old, other]), undefined);
  const fresh = sample('r2', {}, {}, '2026-11-30T10:05:00Z');
  assert.equal(newRolloutOf(old, '2026-11-30T10:05:00Z', [earlier, old, other, fresh])?.metadata.name, 'r2');
  assert.equal(
    retriedText({ old, created: fresh }),
    `rollout r1 retried after it ended Failed: new rollout r2 to ${TO}; approve it with kubectl aicr approve r2`,
  );
});

test('ROL-6 describe shows a revocation with its reason, a retry request, and the reason the rollout ended', () => {
  const revoked = sample(
    'r1',
    { revocation: { revokedBy: 'alice', revokedAt: '2026-11-30T10:03:00Z', reason: 'maintenance window closed' } },
    ended('Revoked', 'RolloutRevoked'),
  );
  const text = describeRollout(revoked);
  assert.match(text, /^Outcome: {3}Revoked \(RolloutRevoked\)$/m);
  assert.match(text, /^Revoked: {3}by alice at 2026-11-30T10:03:00Z: maintenance window closed$/m);
  const retried = describeRollout(
    sample(
      'r1',
      { retry: { requestedBy: 'bob', requestedAt: '2026-11-30T10:04:00Z' } },
      ended('Superseded', 'Superseded'),
    ),
  );
  assert.match(retried, /^Outcome: {3}Superseded$/m);
  assert.match(
    retried,
    new RegExp(
      `^Retry:     requested by bob at 2026-11-30T10:04:00Z; the new rollout to ${TO} replaces this one$`,
      'm',
    ),
  );
  assert.match(describeRollout(sample('r1')), /^Outcome: {3}in progress$/m);
});

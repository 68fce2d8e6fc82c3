// A refusal is final for the approval it judged (SEC-7, APR-2): the control plane records it in
// status and never clears the approval from spec; the same approval is not judged again even once
// the refusal's cause is gone, and only a new approval is.
import assert from 'node:assert/strict';
import test from 'node:test';
import { judgeApproval } from '../../shared/rollout/rules/approval.ts';
import { parseRollout, type RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';

const UID = '11111111-1111-4111-8111-111111111111';
const FIRST = { approvedBy: 'alice', approvedAt: '2026-12-07T09:00:00Z' };

function rollout(approval: typeof FIRST, status?: Record<string, unknown>): RolloutObject {
  const parsed = parseRollout({
    metadata: {
      name: 'r1',
      uid: 'uid-r1',
      creationTimestamp: '2026-12-07T08:00:00Z',
      generation: 1,
      resourceVersion: '1',
    },
    spec: {
      runtimeUID: UID,
      type: 'Upgrade',
      toPlan: `aicr-plan-${'b'.repeat(64)}`,
      steps: [{ release: 'gpu-operator', action: 'Upgrade', verdict: 'unknown' }],
      inventory: 'inv',
      deadline: '2026-12-08T08:00:00Z',
      approval,
    },
    ...(status ? { status } : {}),
  });
  assert.ok(parsed);
  return parsed;
}

const refusedFirst = {
  approval: {
    state: 'Refused',
    ...FIRST,
    reason: 'RegistryCredentialsStale',
    message: 'approval by alice refused: the registry credentials are stale',
  },
};

test('SEC-7 APR-2 a recorded refusal stands for its approval once the cause is gone; a new approval is judged afresh', () => {
  const stale = judgeApproval({ rollout: rollout(FIRST), inventory: 'inv', staleCredentials: 'the token expired' });
  assert.equal(stale.state, 'Refused');
  assert.equal(stale.state === 'Refused' && stale.recorded, false, 'first judged now');
  const again = judgeApproval({ rollout: rollout(FIRST, refusedFirst), inventory: 'inv' });
  assert.deepEqual(again, {
    state: 'Refused',
    ...FIRST,
    reason: 'RegistryCredentialsStale',
    message: 'approval by alice refused: the registry credentials are stale',
    supersede: false,
    recorded: true,
  });
  const second = { approvedBy: 'alice', approvedAt: '2026-12-07T10:00:00Z' };
  const fresh = judgeApproval({ rollout: rollout(second, refusedFirst), inventory: 'inv' });
  assert.equal(fresh.state, 'Accepted', 'a new approval, with the cause gone, is accepted');
});

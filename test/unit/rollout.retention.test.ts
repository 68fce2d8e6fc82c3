// The record of rollouts (SEC-11): the newest `rollouts.keep` are kept whichever runtime made them,
// one that has not ended is never retired, and `kubectl aicr history` lists them newest first,
// marking the ones of a runtime that no longer exists.
import assert from 'node:assert/strict';
import test from 'node:test';
import { rolloutsToRetire } from '../../shared/rollout/rules/retention.ts';
import { parseRollout, rolloutManifest, type RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { historyRows, historyText } from '../../cli/history.ts';

const OLD_UID = '11111111-1111-4111-8111-111111111111';
const NEW_UID = '22222222-2222-4222-8222-222222222222';

function rollout(i: number, uid: string, outcome?: string): RolloutObject {
  const parsed = parseRollout({
    metadata: {
      name: `r${String(i).padStart(2, '0')}`,
      uid: `uid-${i}`,
      creationTimestamp: `2026-12-07T${String(i).padStart(2, '0')}:00:00Z`,
      generation: 1,
      resourceVersion: '1',
    },
    spec: {
      runtimeUID: uid,
      type: 'Upgrade',
      toPlan: `aicr-plan-${'b'.repeat(64)}`,
      steps: [],
      approval: { approvedBy: 'alice', approvedAt: `2026-12-07T${String(i).padStart(2, '0')}:05:00Z` },
    },
    ...(outcome ? { status: { outcome } } : {}),
  });
  assert.ok(parsed);
  return parsed;
}

test('SEC-11 retention keeps the newest rollouts.keep across runtimes and never retires one that has not ended', () => {
  const records = [
    rollout(1, OLD_UID, 'Succeeded'),
    rollout(2, OLD_UID), // never ended: its runtime went while it waited
    rollout(3, OLD_UID, 'Orphaned'),
    rollout(4, NEW_UID, 'Succeeded'),
    rollout(5, NEW_UID, 'Failed'),
    rollout(6, NEW_UID),
  ];
  assert.deepEqual(
    rolloutsToRetire(records, 3).map((r) => r.metadata.name),
    ['r03', 'r01'],
    'beyond the newest three, the ended ones go, newest first; r02 stays',
  );
  assert.deepEqual(rolloutsToRetire(records, 6), [], 'nothing beyond the bound');
  assert.deepEqual(
    rolloutsToRetire([...records].reverse(), 1).map((r) => r.metadata.name),
    ['r05', 'r04', 'r03', 'r01'],
    'the order listed does not matter',
  );
});

test('SEC-11 a rollout is owned by nothing, so it outlives the runtime that made it', () => {
  const manifest = rolloutManifest('r1', rollout(1, OLD_UID).spec);
  assert.equal('ownerReferences' in manifest.metadata, false);
});

test("SEC-11 kubectl aicr history lists every rollout kept, newest first, with who approved it and a deleted runtime's marked", () => {
  const rows = historyRows([rollout(1, OLD_UID, 'Succeeded'), rollout(4, NEW_UID)], NEW_UID);
  assert.deepEqual(
    rows.map((r) => [r.name, r.current, r.approvedBy, r.outcome]),
    [
      ['r04', true, 'alice', undefined],
      ['r01', false, 'alice', 'Succeeded'],
    ],
  );
  const text = historyText(rows);
  assert.match(text, /ROLLOUT\s+RUNTIME\s+TYPE/);
  assert.match(
    text,
    /r04\s+22222222\s+Upgrade\s+-\s+bbbbbbbbbbbb\s+2026-12-07T04:00:00Z\s+alice\s+2026-12-07T04:05:00Z\s+in progress/,
  );
  assert.match(text, /r01\s+11111111 \(deleted\)\s+Upgrade/);
  assert.equal(historyText([]), 'no rollouts recorded');
});

// What `kubectl aicr describe` says about the runtime itself: its conditions, then the cause and
// fix of the reason that explains it now, in the words of the troubleshooting table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeRuntime } from '../../cli/describe.ts';
import { REASON_GUIDE } from '../../shared/status/reasonGuide.ts';

function runtime(
  conditions: { type: string; status: string; reason: string; message: string }[],
): Record<string, unknown> {
  return { metadata: { name: 'cluster', uid: 'u1' }, status: { activePlan: 'aicr-plan-aaaaaaaaaaaaaaaa', conditions } };
}

test("KROP-2 describe prints the cause and fix of a stalled runtime's reason, with the link to its entry", () => {
  const text = describeRuntime(
    runtime([
      { type: 'Ready', status: 'False', reason: 'InvalidSpec', message: 'spec.aicrVersion: must look like v1.2.3' },
      { type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'spec.aicrVersion: must look like v1.2.3' },
    ]),
    undefined,
    undefined,
  );
  assert.match(text, /^Reason:\s+InvalidSpec$/m);
  assert.match(text, new RegExp(`^Cause:\\s+${REASON_GUIDE.InvalidSpec.cause}$`, 'm'));
  assert.match(
    text,
    /^Fix:\s+`kubectl edit clusterruntime cluster` and correct the field the message names \(entry \(docs\/troubleshooting\.md#stalled-with-invalidspec\)\)$/m,
  );
  assert.doesNotMatch(text, /\]\(#/, 'no raw markdown link is left');
});

test("KROP-2 describe explains a runtime in progress by Ready's reason, and prints nothing for a reason it does not know", () => {
  const progressing = describeRuntime(
    runtime([{ type: 'Ready', status: 'False', reason: 'Validating', message: 'validation runs' }]),
    undefined,
    undefined,
  );
  assert.match(progressing, /^Reason:\s+Validating$/m);
  assert.match(progressing, new RegExp(`^Cause:\\s+${REASON_GUIDE.Validating.cause}$`, 'm'));
  const unknown = describeRuntime(
    runtime([{ type: 'Ready', status: 'False', reason: 'SomethingNewer', message: '' }]),
    undefined,
    undefined,
  );
  assert.doesNotMatch(unknown, /^Cause:/m);
  assert.match(unknown, /No rollout in progress\./);
});

test('WIN-1 describe shows whether a step may start now and, outside every window, when the next one opens', () => {
  const withWindows = (maintenance: unknown): Record<string, unknown> => ({
    ...runtime([]),
    spec: { aicrVersion: 'v0.11.1', maintenance },
  });
  const at = new Date('2026-12-03T10:00:00Z');
  const nightly = { windows: [{ schedule: '0 2 * * *', duration: '2h' }] };
  assert.match(
    describeRuntime(withWindows(nightly), undefined, undefined, at),
    /^Windows:\s+closed: outside every allow window; the next opens at 2026-12-04T02:00:00\.000Z \(in 16h\); no new step starts until then$/m,
  );
  assert.match(
    describeRuntime(withWindows(nightly), undefined, undefined, new Date('2026-12-04T02:30:00Z')),
    /^Windows:\s+open now: inside allow window .* until 2026-12-04T04:00:00\.000Z$/m,
  );
  assert.match(
    describeRuntime(withWindows(undefined), undefined, undefined, at),
    /^Windows:\s+none set: steps start at any time$/m,
  );
  assert.match(
    describeRuntime(withWindows({ windows: [{ schedule: 'every night', duration: '2h' }] }), undefined, undefined, at),
    /^Windows:\s+spec\.maintenance does not validate/m,
  );
});

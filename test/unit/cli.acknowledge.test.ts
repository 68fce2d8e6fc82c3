// `kubectl aicr acknowledge` against a stand-in kubectl ($KUBECTL): it writes the acknowledgement
// with the resourceVersion it read, so a concurrent change makes the API server answer Conflict
// and the command reads again instead of overwriting; an admission refusal is shown as it was
// given. The stand-in records every call and plays the API server and the rollout step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acknowledge } from '../../cli/acknowledge.ts';
import { Refused } from '../../cli/approve.ts';

const dir = mkdtempSync(join(tmpdir(), 'aicr-ack-'));
const STATE = join(dir, 'state.json');
const CALLS = join(dir, 'calls.log');
const NAME = 'aicr-rollout-0123456789abcdef-t1';

// The stand-in: `get` returns the stored rollout, `auth whoami` names alice, `patch` answers as
// the state file says (conflict first, a denial, or accept and let the rollout step move on).
const FAKE = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const state = JSON.parse(fs.readFileSync(${JSON.stringify(STATE)}, 'utf8'));
fs.appendFileSync(${JSON.stringify(CALLS)}, args.join(' ') + '\\n');
const save = () => fs.writeFileSync(${JSON.stringify(STATE)}, JSON.stringify(state));
if (args[0] === 'auth') { process.stdout.write(JSON.stringify({ status: { userInfo: { username: 'alice' } } })); process.exit(0); }
if (args[0] === 'get') { process.stdout.write(JSON.stringify(state.rollout)); process.exit(0); }
const patch = JSON.parse(args[args.indexOf('-p') + 1]);
if (state.conflicts > 0) {
  state.conflicts--;
  // Someone else acknowledged meanwhile: a new entry and a new resourceVersion.
  state.rollout.spec.acknowledgements = [...(state.rollout.spec.acknowledgements || []), { release: 'other', acknowledgedBy: 'bob', acknowledgedAt: '2026-11-30T11:00:00Z' }];
  state.rollout.metadata.resourceVersion = String(Number(state.rollout.metadata.resourceVersion) + 1);
  save();
  process.stderr.write('Error from server (Conflict): Operation cannot be fulfilled on runtimerollouts.operator.aicr.run "x": the object has been modified; please apply your changes to the latest version and try again\\n');
  process.exit(1);
}
if (state.deny) { process.stderr.write('The runtimerollouts "x" is invalid: ValidatingAdmissionPolicy \\'aicr-rollout-approvals\\' with binding \\'aicr-rollout-approvals\\' denied request: ' + state.deny + '\\n'); process.exit(1); }
if (patch.metadata.resourceVersion !== state.rollout.metadata.resourceVersion) { process.stderr.write('stale write\\n'); process.exit(1); }
state.rollout.spec.acknowledgements = patch.spec.acknowledgements;
state.rollout.status.steps = state.rollout.status.steps.map((s) => (s.state === 'AwaitingAcknowledgement' ? { ...s, state: 'Succeeded', message: 'acknowledged' } : s));
save();
`;

function rollout(): Record<string, unknown> {
  return {
    metadata: { name: NAME, uid: '0f0e0d0c-0000-4000-8000-000000000002', resourceVersion: '10' },
    spec: {
      runtimeUID: '5c9a1f3e-0000-4000-8000-000000000001',
      type: 'Upgrade',
      toPlan: 'aicr-plan-0123456789abcdef',
      steps: [
        { release: 'driver', action: 'Upgrade' },
        { release: 'other', action: 'Upgrade' },
      ],
    },
    status: {
      steps: [
        { release: 'driver', state: 'AwaitingAcknowledgement' },
        { release: 'other', state: 'Pending' },
      ],
    },
  };
}

function setState(extra: Record<string, unknown>): void {
  writeFileSync(STATE, JSON.stringify({ rollout: rollout(), conflicts: 0, ...extra }));
  writeFileSync(CALLS, '');
}

const state = (): { rollout: { spec: { acknowledgements?: { release: string; acknowledgedBy: string }[] } } } =>
  JSON.parse(readFileSync(STATE, 'utf8')) as never;
const patches = (): string[] =>
  readFileSync(CALLS, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('patch '));
let saved: string | undefined;

before(() => {
  const bin = join(dir, 'kubectl');
  writeFileSync(bin, FAKE);
  chmodSync(bin, 0o755);
  saved = process.env['KUBECTL'];
  process.env['KUBECTL'] = bin;
});
after(() => {
  if (saved === undefined) delete process.env['KUBECTL'];
  else process.env['KUBECTL'] = saved;
  rmSync(dir, { recursive: true, force: true });
});

test('APR-3 acknowledge writes with the resourceVersion it read; after a conflict it reads again and keeps the entry written meanwhile', async () => {
  setState({ conflicts: 1 });
  const done = await acknowledge({ flags: [] }, NAME, undefined, 5_000);
  assert.deepEqual(
    [done.acknowledgement.release, done.acknowledgement.acknowledgedBy, done.step.state],
    ['driver', 'alice', 'Succeeded'],
  );
  const [first, second, ...more] = patches();
  assert.equal(more.length, 0);
  assert.match(first ?? '', /"resourceVersion":"10"/);
  assert.match(second ?? '', /"resourceVersion":"11"/);
  assert.deepEqual(
    state().rollout.spec.acknowledgements?.map((a) => [a.release, a.acknowledgedBy]),
    [
      ['other', 'bob'],
      ['driver', 'alice'],
    ],
  );
});

test('APR-3 an admission refusal is shown as the policy worded it, and nothing waits', async () => {
  setState({ deny: 'spec.acknowledgements only grows: an acknowledgement once given stays as it was' });
  await assert.rejects(
    acknowledge({ flags: [] }, NAME, undefined, 5_000),
    (e: Error) =>
      e instanceof Refused &&
      e.message ===
        'acknowledgement refused: spec.acknowledgements only grows: an acknowledgement once given stays as it was',
  );
  assert.equal(patches().length, 1);
});

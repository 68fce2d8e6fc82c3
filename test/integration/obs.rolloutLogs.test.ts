// OBS-1 on the lines of a real rollout, with the labelled Argo CD stand-in: every line the
// rollout step logs about a rollout names it beside the runtime UID, the looks that read its
// target plan name the plan's digest, and no Helm value reaches the log. Only the rollout step
// runs (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import { approve, awaitingRollout, clearRolloutStage, released, stopAndClear } from '../../harness/rollouts.ts';
import { createRuntime } from '../../harness/runtime.ts';

const VALUE = 'helm-value-never-logged-7f3a';
let cp: ReturnType<typeof startCapturedControlPlane>;

before(async () => {
  await clearRolloutStage();
  for (const name of ['alpha', 'bravo']) await pushChart(name, '1.0.0');
  cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout'),
  });
});

after(() => stopAndClear(cp));

test('OBS-1 the lines of a real rollout carry the runtime UID, the rollout and, once its target plan is read, the plan digest; never a value', async () => {
  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks' },
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const { name: plan, plan: stored } = await storePlan(uid, [
    chartRelease('alpha', 0, '1.0.0', { values: { licence: VALUE } }),
    chartRelease('bravo', 1, '1.0.0'),
  ]);
  await target(plan);
  const rollout = (await awaitingRollout(plan)).metadata.name;
  await approve(rollout);
  await released(`Released on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan));
  const lines = cp.records().filter((r) => r['step'] === 'rollout');
  const about = lines.filter((r) => r['rollout'] === rollout);
  assert.ok(about.length > 0, 'lines name the rollout');
  for (const r of about) assert.equal(r['runtimeUID'], uid, JSON.stringify(r));
  // Each look that followed the rollout ends in a status write whose line names it.
  const writes = about.filter((r) => r['message'] === 'status written');
  assert.ok(writes.length >= 2, `the awaiting and the executing looks: ${JSON.stringify(writes)}`);
  const withPlan = writes.filter((r) => r['planDigest'] === stored.digest);
  assert.ok(withPlan.length >= 1, `a look that read the target plan names its digest: ${JSON.stringify(writes)}`);
  for (const r of lines.filter((x) => x['planDigest'] !== undefined))
    assert.equal(
      r['rollout'],
      rollout,
      `a plan digest is logged only with the rollout it is for: ${JSON.stringify(r)}`,
    );
  assert.equal(JSON.stringify(cp.records()).includes(VALUE), false, 'no Helm value is logged');
});

// The order of a control-plane upgrade (docs/deletion.md): the chart first, then the functions.
// Functions newer than the chart may need a right the chart does not grant yet; here the rollout
// step's right to put the cleanup finalizer on the runtime is taken away, as an older chart would
// have it. The refusal shows as APIRequestRefused (Stalled, retrying), nothing is written to
// Argo CD, and it clears by itself once the chart's rules are back.
import { spawn } from 'node:child_process';
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION, FINALIZER } from '../../shared/api/constants.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { auditMark } from '../../harness/audit.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { testEnv } from '../../harness/env.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { assertNoApplicationWrite, clearRolloutStage } from '../../harness/rollouts.ts';
import { condition, createRuntime, deleteRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const ROLE = 'aicr-step-rollout';
let original = '';

after(async () => {
  if (original) await restoreRole();
  await deleteRuntime();
});

/** Puts the chart's rules back, as upgrading the chart would. */
async function restoreRole(): Promise<void> {
  await new Promise<void>((done, fail) => {
    const p = spawn('kubectl', ['--kubeconfig', testEnv().KUBECONFIG, 'replace', '-f', '-'], {
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    p.on('exit', (code) => (code === 0 ? done() : fail(new Error(`kubectl replace exited ${code}`))));
    p.stdin.end(original);
  });
}

test('new functions on an older chart: a right the chart does not grant yet shows as APIRequestRefused and clears once the chart is upgraded, with nothing written to Argo CD meanwhile', async () => {
  await clearRolloutStage();
  const role = JSON.parse(await kubectl('get', 'clusterrole', ROLE, '-o', 'json')) as {
    metadata: Record<string, unknown>;
    rules: { resources: string[]; verbs: string[] }[];
  };
  original = JSON.stringify({
    ...role,
    metadata: { name: ROLE, labels: role.metadata['labels'], annotations: role.metadata['annotations'] },
  });
  const older = role.rules.map((r) =>
    r.resources.includes('clusterruntimes') ? { ...r, verbs: r.verbs.filter((v) => v !== 'patch') } : r,
  );
  await kubectl('patch', 'clusterrole', ROLE, '--type', 'merge', '-p', JSON.stringify({ rules: older }));
  const mark = auditMark();
  const cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout'),
  });
  try {
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: { service: 'eks' } });
    const refused = await waitFor(
      'Stalled with APIRequestRefused',
      async () => {
        const c = condition(await getRuntime(), CONDITION.stalled);
        return c?.status === 'True' && c.reason === 'APIRequestRefused' ? c : undefined;
      },
      30_000,
    );
    assert.match(refused.message, /refused the request for aicr-step-rollout: http 403 Forbidden/);
    await assertNoApplicationWrite(mark);
    await restoreRole();
    original = '';
    const back = await waitFor(
      'the finalizer once the chart is upgraded',
      async () => {
        const rt = await getRuntime();
        return rt?.metadata.finalizers?.includes(FINALIZER.cleanup) &&
          condition(rt, CONDITION.stalled)?.reason !== 'APIRequestRefused'
          ? rt
          : undefined;
      },
      30_000,
    );
    assert.equal(condition(back, CONDITION.released)?.reason, 'AwaitingPlan');
  } finally {
    cp.stop();
    await cp.running;
  }
});

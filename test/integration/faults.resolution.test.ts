// FLT-1, resolution under crashes: the snapshot and resolve steps run in processes the fault
// harness kills (SIGKILL) right after seeded writes, handling a share of messages twice
// (test/helpers/faults/processes.ts), while real AICR Jobs (the snapshot agent, recipe, render)
// do the work. Checked from the API server's audit log: each stage ran one Job for its input,
// never a second beside it, and the runtime resolves to a readable plan with nobody acting.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { NAMESPACES } from '../../shared/api/constants.ts';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { CONTROL_PLANE_USER } from '../../harness/env.ts';
import { CALM, SEED, type Start, crashUntil, seeded } from '../helpers/faults/processes.ts';
import { readPlanNamed } from '../helpers/plans.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../../harness/runtime.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const rng = seeded(SEED + 3);
const starts: Start[] = [];

async function clearRuns(): Promise<void> {
  for (const ns of [NAMESPACES.jobs, NAMESPACES.discovery])
    await kubectl('delete', 'jobs', '-n', ns, '--all', '--wait=true');
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  await clearRuns();
});

after(async () => {
  console.log(
    `seed ${SEED + 3}, resolution: ${starts.length} starts, ${starts.filter((s) => s.crash).length} crashes, ${starts.reduce((n, s) => n + s.duplicates, 0)} messages handled twice; crashes after: ${starts.flatMap((s) => (s.crash ? [s.crash] : [])).join('; ')}`,
  );
  await deleteRuntime();
  await clearRuns();
});

const planOf = (message: string): string | undefined => /^plan (aicr-plan-[0-9a-f]+) /.exec(message)?.[1];

test('FLT-1 a resolution through real AICR Jobs under crashes: each stage runs one Job for its input, never two at once, and the runtime resolves to a readable plan', async () => {
  const mark = auditMark();
  const uid = (await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING })).metadata.uid;
  const resolved = async (): Promise<boolean> => {
    const c = condition(await getRuntime(), 'Resolved');
    return c?.status === 'True' && planOf(c.message) !== undefined;
  };
  await crashUntil('Resolved=True naming a plan', resolved, rng, {
    starts,
    busy: CALM,
    steps: ['snapshot', 'resolve'],
  });
  assert.ok(
    starts.some((s) => s.crash),
    'at least one process was killed on the way',
  );

  await settleAudit();
  const created = auditSince(mark)
    .filter(
      (e) =>
        e.user.username === CONTROL_PLANE_USER &&
        e.objectRef?.resource === 'jobs' &&
        e.verb === 'create' &&
        e.responseStatus?.code === 201,
    )
    .map((e) => e.objectRef?.name ?? '');
  // A Job's name is its stage, a hash of its input and the run's number: a second Job for one
  // input would be run 2, and a Job created twice would appear twice.
  const runs = created.map((name) => /^aicr-([a-z]+)-([0-9a-f]{16})-(\d+)$/.exec(name));
  assert.ok(
    runs.every((r) => r !== null),
    `every Job is named by stage, input and run: ${created.join(', ')}`,
  );
  assert.deepEqual(
    created.filter((n) => !n.endsWith('-1')),
    [],
    'no stage ran a second Job for its input: none of the first failed',
  );
  assert.equal(new Set(created).size, created.length, `no Job was created twice: ${created.join(', ')}`);
  assert.deepEqual(
    [...new Set(runs.map((r) => r?.[1]))].sort(),
    ['recipe', 'render', 'snapshot'],
    `one Job per stage: ${created.join(', ')}`,
  );

  const rt = await getRuntime();
  assert.equal(rt?.metadata.uid, uid);
  const plan = planOf(condition(rt, 'Resolved')?.message ?? '') ?? '';
  assert.ok((await readPlanNamed(stepKube('resolve'), plan)).releases.length > 0, `${plan} holds the releases`);
  assert.notEqual(condition(rt, 'Stalled')?.status, 'True', 'nothing a person must act on');
});

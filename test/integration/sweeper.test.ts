// KROP-3 on the test cluster: AICR Jobs whose runtime no longer exists are removed by the sweeper
// once older than the stale period, and not before the grace period after the forwarder started;
// Jobs of a live runtime and Jobs the control plane did not start are never touched. Local mode
// runs the same sweep on a timer. The sweeper acts as the forwarder's own identity.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ANNOTATION, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { sweepLeftovers } from '../../shared/sweeper/leftovers.ts';
import { controlPlaneKube, startCapturedControlPlane, forwarderKube, stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { createRuntime, deleteRuntime, ensureCrds, kubectl, waitFor } from '../../harness/runtime.ts';

let liveUID = '';

function job(
  name: string,
  runtimeUID: string,
  ours = true,
): { metadata: { name: string; [key: string]: unknown } } & Record<string, unknown> {
  const labels = ours ? { [LABEL.managedBy]: MANAGED_BY_VALUE } : { team: 'gpu' };
  const container = { name: 'c', image: 'registry.invalid/none:0', command: ['true'] };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NAMESPACES.jobs, labels, annotations: { [ANNOTATION.runtimeUID]: runtimeUID } },
    spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [container] } } },
  };
}

async function jobNames(): Promise<string[]> {
  return (await stepKube('resolve').list(KIND.job, { namespace: NAMESPACES.jobs })).items
    .map((j) => j.metadata.name)
    .filter((n) => n.startsWith('sweep-'))
    .sort();
}

async function clearJobs(): Promise<void> {
  await kubectl(
    '-n',
    NAMESPACES.jobs,
    'delete',
    'jobs',
    'sweep-gone',
    'sweep-live',
    'sweep-person',
    'sweep-local',
    '--ignore-not-found',
    '--wait=true',
  );
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  liveUID = (await createRuntime({ aicrVersion: 'v0.0.1', criteria: { service: 'eks' } })).metadata.uid;
  await clearJobs();
});

after(async () => {
  await clearJobs();
  await deleteRuntime();
});

test("KROP-3 Jobs of a runtime that no longer exists are swept once stale and past the grace period; Jobs of a live runtime and a person's Jobs stay", async () => {
  const gone = randomUUID();
  // The stage is set as a person would: the chart's policies hold the steps themselves to pinned images.
  const admin = controlPlaneKube();
  await admin.create(KIND.job, job('sweep-gone', gone));
  await admin.create(KIND.job, job('sweep-live', liveUID));
  await admin.create(KIND.job, job('sweep-person', gone, false));
  const { log, records } = captureLogger();
  const deps = { kube: forwarderKube(), log, now: () => new Date() };
  const settings = { staleAfterMs: 3_000, graceMs: 60_000 };
  assert.deepEqual(
    await sweepLeftovers({ ...deps, startedAt: new Date() }, settings),
    { skipped: 'grace' },
    'nothing is swept within the grace period',
  );
  const longAgo = new Date(Date.now() - 3_600_000);
  // Earlier tests may have left Jobs of their deleted runtimes too; only this test's count here.
  const ours = (r: Awaited<ReturnType<typeof sweepLeftovers>>): string[] =>
    'jobs' in r ? r.jobs.filter((j) => j.includes('/sweep-')) : ['skipped'];
  assert.deepEqual(
    ours(await sweepLeftovers({ ...deps, startedAt: longAgo }, settings)),
    [],
    'a leftover younger than the stale period stays',
  );
  await new Promise((r) => setTimeout(r, 3_000));
  assert.deepEqual(ours(await sweepLeftovers({ ...deps, startedAt: longAgo }, settings)), [
    `${NAMESPACES.jobs}/sweep-gone`,
  ]);
  await waitFor('the swept Job is gone', async () => ((await jobNames()).includes('sweep-gone') ? undefined : true));
  assert.deepEqual(await jobNames(), ['sweep-live', 'sweep-person']);
  assert.ok(records().some((r) => r['message'] === 'removed work of runtimes that no longer exist'));
});

test('KROP-3 local mode sweeps on its own timer, after its grace period', async () => {
  await controlPlaneKube().create(KIND.job, job('sweep-local', randomUUID()));
  const cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, sweepStaleAfterMs: 1_000, sweepGraceMs: 2_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout'),
  });
  try {
    await waitFor(
      'local mode swept the leftover Job',
      async () => ((await jobNames()).includes('sweep-local') ? undefined : true),
      20_000,
    );
  } finally {
    cp.stop();
    await cp.running;
  }
});

// JOB-7 on the test cluster with the real aicr v0.11.1: a failed run whose stage has not
// stalled stays, with its pod and logs, for 24 hours (the stalled case, 7 days, is in
// aicr.runs.test.ts), a later success for the same inputs does not remove it, and it goes once
// the inputs change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, LABEL, NAMESPACES } from '../../shared/api/constants.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { forceAicrExit } from '../helpers/knobs.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

interface Run {
  readonly name: string;
  readonly stage: string;
  readonly ttl: number | undefined;
  readonly verdict: string | undefined;
}

async function jobs(): Promise<Run[]> {
  const out = JSON.parse(await kubectl('get', 'jobs', '-n', NAMESPACES.jobs, '-o', 'json')) as {
    items: {
      metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: { ttlSecondsAfterFinished?: number };
    }[];
  };
  return out.items.map((j) => ({
    name: j.metadata.name,
    stage: j.metadata.labels?.[LABEL.stage] ?? '',
    ttl: j.spec.ttlSecondsAfterFinished,
    verdict: j.metadata.annotations?.[ANNOTATION.verdict],
  }));
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'jobs', '-n', NAMESPACES.jobs, '--all', '--wait=true');
});
after(async () => {
  cp?.stop();
  await cp?.running;
  await deleteRuntime();
  await kubectl('delete', 'jobs', '-n', NAMESPACES.jobs, '--all', '--wait=true');
});

test('JOB-7 a failed run whose stage has not stalled keeps its Job, pod and logs for 24 hours, also after a success for the same inputs; once the inputs change it is deleted', async () => {
  const stderr = '[cli] command failed: error=[INTERNAL] recipe store unreadable (test knob) exitCode=8\n';
  const forced = await forceAicrExit('recipe', 8, stderr, { times: 1 });
  try {
    cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    await waitFor(
      'a failed recipe run',
      async () => (await jobs()).find((j) => j.stage === 'recipe' && j.verdict === 'counted'),
      60_000,
    );
    await resolvedWith('Resolved=True after the second run', (c) => c.status === 'True', 120_000);
  } finally {
    await forced.undo();
  }
  const all = await jobs();
  const kept = all.find((j) => j.stage === 'recipe' && j.verdict === 'counted');
  assert.ok(kept, `the failed run is kept after the success: ${JSON.stringify(all)}`);
  assert.equal(kept.ttl, 24 * 3600, 'kept for 24 hours: its stage did not stall');
  assert.notEqual(condition(await getRuntime(), 'Resolved')?.reason, 'AICRStageStalled');
  assert.deepEqual(
    all.filter((j) => j.verdict === undefined),
    [],
    'the successful Jobs are gone',
  );
  assert.match(
    await kubectl('logs', '-n', NAMESPACES.jobs, `job/${kept.name}`),
    /recipe store unreadable \(test knob\)/,
    'its pod and logs are kept',
  );
  // New inputs: the failed Job of the old ones goes.
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { criteria: { ...TRAINING, intent: 'inference' } } }),
  );
  await waitFor(
    `Job ${kept.name} deleted once the inputs changed`,
    async () => ((await jobs()).some((j) => j.name === kept.name) ? undefined : true),
    60_000,
  );
});

/** The digest of the plan Resolved=True names; that of the previous inputs may still stand, so only one for `generation` counts. */
async function resolvedFor(generation: number): Promise<string> {
  return waitFor(
    `Resolved=True naming a plan for generation ${generation}`,
    async () => {
      const c = condition(await getRuntime(), 'Resolved');
      const digest = /plan aicr-plan-([0-9a-f]{16})/.exec(c?.message ?? '')?.[1];
      return c?.status === 'True' && (c.observedGeneration ?? 0) >= generation ? digest : undefined;
    },
    120_000,
  );
}

test('OBS-1 the lines of an AICR run name it (runId) beside the runtime UID, and the look that resolved a plan names its digest', async () => {
  const runtime = await getRuntime();
  const uid = runtime?.metadata.uid ?? '';
  const digest = await resolvedFor(runtime?.metadata.generation ?? 0);
  // The step logs "status written" after the API server took the write, so the runtime can show
  // the new plan a moment before the line reaches the captured output.
  const named = (r: Record<string, unknown>): boolean =>
    r['step'] === 'resolve' &&
    r['message'] === 'status written' &&
    String(r['planDigest']).startsWith(`sha256:${digest}`);
  await waitFor(
    `the status write of the resolved plan names its digest ${digest}`,
    async () => cp?.records().find(named),
    10_000,
  );
  const runs = (cp?.records() ?? []).filter((r) => r['step'] === 'resolve' && typeof r['runId'] === 'string');
  assert.ok(
    runs.some((r) => /^aicr-recipe-[0-9a-f]{16}-\d+$/.test(String(r['runId']))),
    'a recipe run names its Job',
  );
  assert.ok(
    runs.some((r) => /^aicr-render-[0-9a-f]{16}-\d+$/.test(String(r['runId']))),
    'a render run names its Job',
  );
  for (const r of runs) assert.equal(r['runtimeUID'], uid, JSON.stringify(r));
});

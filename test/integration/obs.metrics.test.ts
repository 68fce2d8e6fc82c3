// OBS-3 on the test cluster: the embedded-metric-format lines the control plane writes for a
// stall that needs a person and a failed AICR Job carry the metric names and the
// dimensions the CloudWatch alarms in serverless.yml select on (the template test checks the
// alarm side against the same module). Local mode writes the same lines as Lambda does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeFromKubeconfig } from '../../shared/kube/fromKubeconfig.ts';
import { METRIC } from '../../shared/observability/metrics.ts';
import { encodeWorkItem, runtimeGroup } from '../../shared/queue/workItem.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { CONTROL_PLANE_USER, testEnv } from '../../harness/env.ts';
import { captureLogger } from '../../harness/logs.ts';
import { RecordingProducer } from '../helpers/recordingProducer.ts';
import { assertDeclared, metricLines } from '../helpers/metrics.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import { createRuntime, deleteRuntime, ensureCrds, kubectl, waitFor } from '../../harness/runtime.ts';
import { dispatchAll, dispatchDeps, resolveItem } from '../../harness/steps.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'jobs', '-n', 'aicr-jobs', '--all', '--wait=true');
});
after(async () => {
  cp?.stop();
  await cp?.running;
  await deleteRuntime();
});

test('OBS-3 a stall that needs a person and a failed AICR Job: their EMF lines carry the metrics and dimensions the alarms use, the stall count stays while it stands and falls to 0 once it clears', async () => {
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  const rt = await createRuntime({ aicrVersion: 'v0.11.1', criteria: { ...TRAINING, os: 'talos' } });
  await resolvedWith('InvalidSpec', (c) => c.reason === 'InvalidSpec', 60_000);
  const job = await waitFor('a failed Job line', async () =>
    metricLines(cp?.records() ?? [], METRIC.aicrJobs).find((l) => l['Result'] === 'Failed'),
  );
  assertDeclared(job, METRIC.aicrJobs);
  assert.deepEqual(
    [job['Stage'], job['Result'], job['ExitCode'], job[METRIC.aicrJobs.name]],
    ['recipe', 'Failed', '8', 1],
    'the recipe stage failed with exit code 8',
  );
  assert.equal(job['runtimeUID'], rt.metadata.uid, 'the runtime is on the line, not in a dimension');
  assert.ok(!JSON.stringify(job.emf.Dimensions).includes('Job'), 'no Job name among the dimensions');
  const stalled = await waitFor('a stall count of 1', async () =>
    metricLines(cp?.records() ?? [], METRIC.stalledNeedsPerson).find((l) => l[METRIC.stalledNeedsPerson.name] === 1),
  );
  for (const def of [
    METRIC.stalledNeedsPerson,
    METRIC.stalledRetrying,
    METRIC.awaitingApproval,
    METRIC.credentialsStale,
  ])
    assertDeclared(stalled, def);
  assert.equal(
    stalled['runtimes'],
    'StalledNeedsPerson: cluster (InvalidSpec)',
    'the runtime and its reason ride along as a plain field',
  );
  assert.deepEqual(
    [
      stalled[METRIC.stalledRetrying.name],
      stalled[METRIC.awaitingApproval.name],
      stalled[METRIC.credentialsStale.name],
    ],
    [0, 0, 0],
  );
  // A runtime nobody writes again stays counted: the count is sent again while it stands.
  const before = metricLines(cp.records(), METRIC.stalledNeedsPerson).length;
  await waitFor('the count sent again', async () =>
    metricLines(cp?.records() ?? [], METRIC.stalledNeedsPerson).filter((l) => l[METRIC.stalledNeedsPerson.name] === 1)
      .length > before
      ? true
      : undefined,
  );
  // Fixing the input: the next count after the fix is 0, which clears the alarm.
  const seen = cp.records().length;
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { criteria: TRAINING } }),
  );
  await resolvedWith('resolving again', (c) => c.reason !== 'InvalidSpec', 60_000);
  await waitFor('the stall count back at 0', async () =>
    metricLines(cp?.records().slice(seen) ?? [], METRIC.stalledNeedsPerson).find(
      (l) => l[METRIC.stalledNeedsPerson.name] === 0,
    ),
  );
  const timing = metricLines(cp.records(), METRIC.reconcileDuration).find((l) => l['Step'] === 'resolve');
  assert.ok(timing, 'each step run reports its duration');
  assertDeclared(timing, METRIC.reconcileDuration);
  assert.equal(typeof timing[METRIC.messageAge.name], 'number', 'and the age of the message it handled');
  cp.stop();
  await cp.running;
  cp = undefined;
});

/** A kubeconfig for the test cluster whose server refuses connections: every request fails as transient. */
function unreachableKubeconfig(): string {
  const text = readFileSync(testEnv().KUBECONFIG, 'utf8').replace(/server: \S+/g, 'server: https://127.0.0.1:1');
  const file = join(mkdtempSync(join(tmpdir(), 'aicr-obs-')), 'kubeconfig');
  writeFileSync(file, text);
  return file;
}

test('OBS-2 FLT-2 an unreachable API server long past the eighth attempt is retried at the backoff cap, never dead-lettered', async () => {
  await deleteRuntime();
  const rt = await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const { log, records } = captureLogger('info');
  const producer = new RecordingProducer();
  const deps = dispatchDeps(kubeFromKubeconfig(unreachableKubeconfig(), CONTROL_PLANE_USER), log, producer);
  const item = { ...resolveItem(rt.metadata.uid), attempt: 40 };
  const msg = {
    id: 'm-late',
    group: runtimeGroup(rt.metadata.uid),
    dedupId: 'late',
    body: encodeWorkItem(item),
    receiveCount: 1,
    sentAt: Date.now() - 2_000,
  };
  await dispatchAll(msg, deps);
  assert.equal(producer.dead.length, 0, 'nothing dead-lettered');
  assert.deepEqual(
    producer.sent.map((m) => m.delayMs),
    [DEFAULT_TIMINGS.backoffCapMs],
    'one retry, at the cap',
  );
  assert.equal(metricLines(records(), METRIC.deadLettered).length, 0);
  const age = metricLines(records(), METRIC.messageAge)[0];
  assert.ok(age && Number(age[METRIC.messageAge.name]) >= 2, 'the message age counts from when it was sent');
});

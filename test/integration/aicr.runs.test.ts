// AICR runs as Jobs, end to end on the test cluster with the real aicr v0.11.1: the resolve
// step runs `aicr recipe` and `aicr bundle --deployer helm` as Jobs in aicr-jobs, reads their
// output, pushes the bundle to the test registry, and reports every wait and failure in the
// runbook's words.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, LABEL, NAMESPACES } from '../../shared/api/constants.ts';
import { RECIPE_SNAPSHOT_ROLE } from '../../shared/aicr/recipeStage.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { type ResolvedCondition, SCALED_TIMINGS, resolvedWith as waitResolved } from '../helpers/resolved.ts';
import { applyConfiguration, testConfiguration } from '../../harness/configuration.ts';
import { testEnv } from '../../harness/env.ts';
import { denyRegistry, forceAicrExit, withKnob } from '../helpers/knobs.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  stalledBecomes,
  waitFor,
} from '../../harness/runtime.ts';
import { aicrDataArgs } from '../helpers/aicrData.ts';
import { runbookOk } from '../helpers/runbook.ts';

const run = promisify(execFile);
const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

function start(): void {
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
}

async function stop(): Promise<void> {
  cp?.stop();
  await cp?.running;
  cp = undefined;
}

async function jobs(): Promise<
  { name: string; stage: string; input: string; ttl: number; verdict: string | undefined }[]
> {
  const out = JSON.parse(await kubectl('get', 'jobs', '-n', NAMESPACES.jobs, '-o', 'json')) as {
    items: {
      metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: { ttlSecondsAfterFinished?: number };
    }[];
  };
  return out.items.map((j) => ({
    name: j.metadata.name,
    stage: j.metadata.labels?.[LABEL.stage] ?? '',
    input: j.metadata.labels?.[LABEL.input] ?? '',
    ttl: j.spec.ttlSecondsAfterFinished ?? 0,
    verdict: j.metadata.annotations?.[ANNOTATION.verdict],
  }));
}

/**
 * Lets the triggers' messages be handled and any run they (wrongly) cause start: until the queue
 * is idle, or for three of the scaled backoff's longest delays, within which any retry would
 * start again. Rechecks on timers keep the queue from being idle for long.
 */
const triggersHandled = (): Promise<unknown> =>
  Promise.race([cp?.queue.idle(), new Promise((r) => setTimeout(r, 3 * SCALED_TIMINGS.backoffCapMs))]);

const resolvedWith = (
  what: string,
  ok: (c: ResolvedCondition) => boolean,
  timeoutMs = 90_000,
): Promise<ResolvedCondition> => waitResolved(what, ok, timeoutMs);

before(async () => {
  await ensureCrds();
});
beforeEach(async () => {
  await stop();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'jobs', '-n', NAMESPACES.jobs, '--all', '--wait=true');
});
after(async () => {
  await stop();
  await deleteRuntime();
  await applyConfiguration();
});

test('JOB-1 JOB-7 recipe and render run as labelled Jobs in aicr-jobs; the pushed bundle pulls back by digest and the Jobs are gone', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const seen = new Set<string>();
  const done = await waitFor(
    'Resolved=True',
    async () => {
      for (const j of await jobs()) {
        assert.match(j.input, /^[0-9a-f]{16}$/, 'the input label is the hash');
        assert.equal(
          j.name.startsWith(`aicr-${j.stage}-${j.input}-`),
          true,
          `${j.name} is named from stage, input and run`,
        );
        seen.add(j.stage);
      }
      const c = condition(await getRuntime(), 'Resolved');
      return c?.status === 'True' ? c : undefined;
    },
    120_000,
  );
  assert.deepEqual([...seen].sort(), ['recipe', 'render']);
  assert.equal(done.reason, 'Resolved');
  const ref = /resolved by aicr v0\.11\.1 from bundle (\S+);/.exec(done.message)?.[1] ?? '';
  assert.match(ref, new RegExp(`^${testEnv().TESTENV_REGISTRY}/aicr/aicr-bundle:[0-9a-f]{16}@sha256:[0-9a-f]{64}$`));
  const [repoTag, digest] = ref.split('@') as [string, string];
  const repo = repoTag.slice(testEnv().TESTENV_REGISTRY.length + 1).replace(/:[^:]+$/, '');
  const auth = `Basic ${Buffer.from(`${testEnv().TESTENV_REGISTRY_USER}:${testEnv().TESTENV_REGISTRY_PASSWORD}`).toString('base64')}`;
  const manifest = await fetch(`http://${testEnv().TESTENV_REGISTRY}/v2/${repo}/manifests/${digest}`, {
    headers: { authorization: auth, accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  assert.equal(manifest.status, 200, 'the bundle pulls back by the digest Resolved names');
  assert.deepEqual(await jobs(), [], 'successful Jobs are deleted once their output is read');
  // The recipe the Job wrote is the one the binary prints for the same criteria.
  const recipes = JSON.parse(
    await kubectl(
      'get',
      'configmaps',
      '-n',
      NAMESPACES.jobs,
      '-l',
      `${LABEL.stage}=recipe,${LABEL.role}!=${RECIPE_SNAPSHOT_ROLE}`,
      '-o',
      'json',
    ),
  ) as { items: { data: Record<string, string> }[] };
  assert.equal(recipes.items.length, 1, 'one recipe output, for the current inputs');
  const direct = await run(process.env['TESTENV_AICR_BIN'] ?? 'aicr', [
    'recipe',
    '--service',
    'eks',
    '--accelerator',
    'h100',
    '--intent',
    'training',
    '--os',
    'ubuntu',
    ...aicrDataArgs(),
  ]);
  // The same document; the ConfigMap writer indents YAML differently from the file writer.
  assert.deepEqual(parseYaml(recipes.items[0]?.data['snapshot.yaml'] ?? ''), parseYaml(direct.stdout));

  // The records of the resolution name the runtime as owner and go with it; the plan stays.
  const uid = (await getRuntime())?.metadata.uid ?? '';
  const plan = /^plan (\S+) /.exec(done.message)?.[1] ?? '';
  const kept = await records();
  assert.deepEqual(
    kept.map((r) => r.owners).sort(),
    kept.map(() => uid),
    `every record is owned by the runtime: ${kept.map((r) => r.name).join(', ')}`,
  );
  assert.ok(
    kept.some((r) => r.name.startsWith('aicr-snapshot-')) && kept.length >= 4,
    'snapshot, recipe, its input, render',
  );
  await stop();
  await deleteRuntime();
  await waitFor(
    'the records gone with the runtime',
    async () => ((await records()).length === 0 ? true : undefined),
    30_000,
  );
  assert.ok(plan && (await kubectl('get', 'configmap', plan, '-n', NAMESPACES.system, '-o', 'name')), 'the plan stays');
});

/** The ConfigMaps a resolution keeps for its runtime (snapshot, recipe, the recipe's input, render), with their owners' UIDs. */
async function records(): Promise<{ name: string; owners: string }[]> {
  const listed = await Promise.all(
    [NAMESPACES.jobs, NAMESPACES.system].map(
      async (ns) =>
        JSON.parse(await kubectl('get', 'configmaps', '-n', ns, '-l', LABEL.stage, '-o', 'json')) as {
          items: { metadata: { name: string; ownerReferences?: { uid: string }[] } }[];
        },
    ),
  );
  return listed.flatMap((l) =>
    l.items.map((i) => ({
      name: i.metadata.name,
      owners: (i.metadata.ownerReferences ?? []).map((o) => o.uid).join(','),
    })),
  );
}

test('VER-1 an aicrVersion without a pinned image is refused naming the requested and allowed versions; no Job runs', async () => {
  start();
  await createRuntime({ aicrVersion: 'v1.1.0', criteria: TRAINING });
  const c = await resolvedWith('AICRVersionMismatch', (x) => x.reason === 'AICRVersionMismatch', 20_000);
  assert.equal(c.status, 'False');
  assert.match(c.message, /v1\.1\.0/);
  assert.match(c.message, /v0\.11\.1/);
  await stalledBecomes('True', 'AICRVersionMismatch');
  assert.deepEqual(await jobs(), []);
});

test('a misspelt configuration key is InvalidConfiguration naming the key and the one meant; fixing it resumes', async () => {
  const bad = testConfiguration() as { aicr: Record<string, unknown> };
  bad.aicr = { ...bad.aicr, jobs: { nodeSelecter: { a: 'b' } } };
  await applyConfiguration(bad);
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith('InvalidConfiguration', (x) => x.reason === 'InvalidConfiguration', 20_000);
  assert.match(c.message, /aicr\.jobs\.nodeSelecter: unknown key; did you mean aicr\.jobs\.nodeSelector\?/);
  assert.deepEqual(await jobs(), [], 'nothing runs on a bad configuration');
  await applyConfiguration();
  await resolvedWith('resolution resumes', (x) => x.reason !== 'InvalidConfiguration', 20_000);
});

test("JOB-2 JOB-5 COND-5 criteria AICR refuses stop after one run: InvalidSpec with exit code and stderr, an AICRRunFailed Event, no second Job after many triggers; the runbook's Job listing and log commands show it", async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: { ...TRAINING, os: 'talos' } });
  const c = await resolvedWith('InvalidSpec', (x) => x.reason === 'InvalidSpec', 60_000);
  assert.match(c.message, /aicr recipe exited 8/);
  assert.match(c.message, /invalid os type: talos/);
  for (let i = 0; i < 10; i++)
    await kubectl('annotate', 'clusterruntime', 'cluster', `operator.aicr.run/reconcile-request=${i}`, '--overwrite');
  await waitFor('the triggers reach the step', async () =>
    (await getRuntime())?.metadata.annotations?.['operator.aicr.run/reconcile-request'] === '9' ? true : undefined,
  );
  await triggersHandled();
  const all = await jobs();
  assert.equal(all.length, 1, 'one run, however many triggers');
  assert.equal(all[0]?.verdict, 'refused');
  assert.equal(all[0]?.ttl, 7 * 24 * 3600, 'a stalled stage keeps its failed Jobs for 7 days');
  // The runbook's Job commands, as written: the failed run with its stage and input, and its log.
  const listed = (
    await runbookOk('kubectl get jobs -n aicr-jobs -L operator.aicr.run/stage,operator.aicr.run/input')
  ).split('\n');
  assert.match(listed[0] ?? '', /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+STAGE\s+INPUT$/);
  const row = listed.find((l) => l.startsWith(`${all[0]?.name ?? '?'} `)) ?? '';
  assert.match(row, /\sFailed\s.*\srecipe\s+[0-9a-f]{8,}\s*$/, row);
  assert.match(await runbookOk(`kubectl logs -n aicr-jobs "job/${all[0]?.name ?? ''}"`), /invalid os type: talos/);
  const described = await runbookOk('kubectl describe clusterruntime cluster   # adds the Events');
  assert.match(described, /Warning\s+AICRRunFailed/);
});

test('JOB-3 JOB-4 a node selector from the configuration that no node matches: the message names the Job and the scheduler text', async () => {
  const cfg = testConfiguration() as { aicr: { jobs: Record<string, unknown> } };
  cfg.aicr.jobs = { nodeSelector: { 'aicr.test/pool': 'nowhere' }, tolerations: [] };
  await applyConfiguration(cfg);
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith('not scheduled', (x) => /is not scheduled/.test(x.message), 30_000);
  assert.equal(c.reason, 'Resolving');
  assert.match(c.message, /^Job aicr-recipe-[0-9a-f]{16}-1 is not scheduled: 0\/\d+ nodes are available/);
  const spec = JSON.parse(
    await kubectl('get', 'jobs', '-n', NAMESPACES.jobs, '-o', 'jsonpath={.items[0].spec.template.spec}'),
  ) as { nodeSelector?: Record<string, string>; tolerations?: unknown };
  assert.deepEqual(spec.nodeSelector, { 'aicr.test/pool': 'nowhere' });
  assert.equal(spec.tolerations, undefined, 'no tolerations unless configured');
  // The runbook's command shows the run with both columns filled.
  const table = await kubectl('get', 'jobs', '-n', NAMESPACES.jobs, '-L', `${LABEL.stage},${LABEL.input}`);
  assert.match(table, /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+STAGE\s+INPUT$/m);
  assert.match(table, /^aicr-recipe-([0-9a-f]{16})-1\s.*\srecipe\s+\1$/m);
});

test('JOB-3 an AICR image that cannot be pulled: the message names the Job and the kubelet text', async () => {
  const cfg = testConfiguration() as { aicr: { versions: Record<string, string> } };
  cfg.aicr.versions = { 'v0.11.1': 'testenv.aicr.local/missing/aicr:v0.11.1' };
  await applyConfiguration(cfg);
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith('ImagePullBackOff', (x) => /ImagePullBackOff|ErrImagePull/.test(x.message), 30_000);
  // The first AICR run of a resolution is discovery's snapshot agent.
  assert.match(
    c.message,
    /^discovering the cluster: Job aicr-snapshot-[0-9a-f]{16}-1: (ImagePullBackOff|ErrImagePull): /,
  );
});

test("JOB-9 a registry that cannot be reached: the push fails with AICR's SERVICE_UNAVAILABLE (v0.11.1 exits 8 around it); retried with backoff as transient, not counted", async () => {
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  cfg.registry = { ...cfg.registry, repository: '127.0.0.1:9/aicr' };
  await applyConfiguration(cfg);
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith(
    'transient',
    (x) => /^retrying after a transient failure: aicr render exited [68]: .*\[SERVICE_UNAVAILABLE\]/.test(x.message),
    90_000,
  );
  assert.equal(c.status, 'False');
  assert.equal(c.reason, 'Resolving');
  await waitFor(
    'a second run after the backoff',
    async () => ((await jobs()).filter((j) => j.stage === 'render').length >= 2 ? true : undefined),
    30_000,
  );
  const render = (await jobs()).filter((j) => j.stage === 'render' && j.verdict);
  assert.ok(render.every((j) => j.verdict === 'transient'));
  assert.notEqual(condition(await getRuntime(), 'Resolved')?.reason, 'AICRStageStalled');
});

test('JOB-6 JOB-2 three failed runs for the same inputs stall the stage: no fourth Job after 50 triggers, failed Jobs kept 7 days; deleting them lets it run again', async () => {
  const stderr = '[cli] command failed: error=[INTERNAL] recipe store unreadable (test knob) exitCode=8\n';
  const forced = await forceAicrExit('recipe', 8, stderr, { times: 3 });
  try {
    start();
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    const c = await resolvedWith('AICRStageStalled', (x) => x.reason === 'AICRStageStalled', 90_000);
    assert.match(c.message, /^aicr recipe failed 3 times for the same inputs/);
    assert.match(
      c.message,
      /aicr recipe exited 8 \(an internal error\): \[INTERNAL\] recipe store unreadable \(test knob\)/,
    );
    for (let i = 0; i < 50; i++)
      await kubectl(
        'annotate',
        'clusterruntime',
        'cluster',
        `operator.aicr.run/reconcile-request=t${i}`,
        '--overwrite',
      );
    await waitFor('the triggers reach the step', async () =>
      (await getRuntime())?.metadata.annotations?.['operator.aicr.run/reconcile-request'] === 't49' ? true : undefined,
    );
    await triggersHandled();
    const failed = await jobs();
    assert.equal(failed.length, 3, 'no fourth run for the same inputs');
    assert.ok(
      failed.every((j) => j.verdict === 'counted' && j.ttl === 7 * 24 * 3600),
      'each failed run counted and kept for 7 days',
    );
    const uid = (await getRuntime())?.metadata.uid ?? '';
    const events = await kubectl(
      'get',
      'events',
      '-n',
      'default',
      '--field-selector',
      `reason=AICRRunFailed,involvedObject.uid=${uid}`,
      '-o',
      'jsonpath={range .items[*]}{.count}{"\\n"}{end}',
    );
    assert.equal(events.trim().split('\n').filter(Boolean).length, 3, 'one AICRRunFailed Event per failed run');
    await kubectl('delete', 'jobs', '-n', NAMESPACES.jobs, '-l', `${LABEL.stage}=recipe`, '--wait=true');
    await kubectl('annotate', 'clusterruntime', 'cluster', 'operator.aicr.run/reconcile-request=again', '--overwrite');
    await resolvedWith('resolution runs again once the failed Jobs are gone', (x) => x.status === 'True', 120_000);
  } finally {
    await forced.undo();
  }
});

test('REG-2 the registry refuses the push (403 through the proxy): Unauthorized, stalled, not retried as transient', async () => {
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  cfg.registry = { ...cfg.registry, repository: `${testEnv().TESTENV_REGISTRY_PROXY}/aicr` };
  await applyConfiguration(cfg);
  await withKnob(denyRegistry({ scope: 'push' }), async () => {
    start();
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    const c = await resolvedWith('Unauthorized', (x) => x.reason === 'Unauthorized', 120_000);
    assert.match(c.message, /403/);
    await stalledBecomes('True', c.reason);
    assert.equal((await jobs()).filter((j) => j.stage === 'render').length, 1, 'a refusal is not retried');
  });
});

test("JOB-3 COND-5 a quota that refuses the run's pod: after a short grace the message says the Job has no pod, and the describe command it gives shows the refusal", async () => {
  await kubectl('create', 'quota', 'no-pods', '-n', NAMESPACES.jobs, '--hard=pods=0');
  try {
    start();
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    const c = await resolvedWith('has no pod', (x) => /has no pod/.test(x.message), 30_000);
    assert.match(
      c.message,
      /^Job aicr-recipe-[0-9a-f]{16}-1 has no pod \(a quota or Pod Security refusal; kubectl describe job aicr-recipe-[0-9a-f]{16}-1 -n aicr-jobs shows it\)$/,
    );
    // The command the message and the runbook give, as written: it shows the quota's refusal.
    const command = /kubectl describe job \S+ -n aicr-jobs/.exec(c.message)?.[0] ?? '';
    assert.match(await runbookOk(command), /FailedCreate[\s\S]*exceeded quota: no-pods/);
  } finally {
    await kubectl('delete', 'quota', 'no-pods', '-n', NAMESPACES.jobs, '--ignore-not-found');
  }
});

test('JOB-9 while only a non-spec input changed, Resolved stays True with the earlier result and says it is retrying; a spec change makes it Resolving', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const first = await resolvedWith('Resolved=True', (x) => x.status === 'True', 120_000);
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  cfg.registry = { ...cfg.registry, repository: '127.0.0.1:9/aicr' };
  await applyConfiguration(cfg);
  // The configuration is not watched; a snapshot request (or the next retry) wakes the step.
  await kubectl(
    'annotate',
    'clusterruntime',
    'cluster',
    'operator.aicr.run/reconcile-request=registry-moved',
    '--overwrite',
  );
  const held = await resolvedWith(
    'retrying, still True',
    (x) => x.message.startsWith('retrying after a transient failure'),
    90_000,
  );
  assert.equal(held.status, 'True', 'the earlier result still holds');
  assert.equal(held.reason, 'Resolved');
  assert.notEqual(held.message, first.message);
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    '{"spec":{"criteria":{"intent":"inference"}}}',
  );
  const after = await resolvedWith('Resolving after the spec change', (x) => x.status === 'False', 60_000);
  assert.equal(after.reason, 'Resolving');
});

test("an override naming a component the recipe does not have is InvalidSpec naming it and the recipe's components; nothing is rendered", async () => {
  start();
  await createRuntime({
    aicrVersion: 'v0.11.1',
    criteria: TRAINING,
    components: { 'no-such-component': { enabled: false } },
  });
  const c = await resolvedWith('InvalidSpec', (x) => x.reason === 'InvalidSpec', 60_000);
  assert.match(
    c.message,
    /^spec\.components\.no-such-component: the recipe for these criteria has no such component; its components are .*gpu-operator/,
  );
  assert.deepEqual(
    (await jobs()).filter((j) => j.stage === 'render'),
    [],
    'no render run',
  );
});

test('an override AICR cannot carry (a list) is InvalidSpec naming its path before any run', async () => {
  start();
  await createRuntime({
    aicrVersion: 'v0.11.1',
    criteria: TRAINING,
    components: { 'gpu-operator': { values: { driver: { args: ['--a', '--b'] } } } },
  });
  const c = await resolvedWith('InvalidSpec', (x) => x.reason === 'InvalidSpec', 20_000);
  assert.match(
    c.message,
    /^spec\.components\.gpu-operator\.values\.driver\.args: a list cannot be set by AICR v0\.11\.1/,
  );
  assert.deepEqual(await jobs(), [], 'nothing runs');
});

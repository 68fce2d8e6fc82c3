// Plans on the test cluster, from the real aicr's bundle in the real registry: the candidate
// plan a resolution writes, pins to missing, foreign and unreadable plans, a bundle that is gone,
// and retention. One runtime and one rendered bundle serve every test; each test changes only
// the plans or the selection.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, FIELD_MANAGER, LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { applicationsDigest, planToApplications } from '../../shared/plans/applications.ts';
import { RECORD_PLAN_KEY } from '../../shared/aicr/renderStage.ts';
import { KIND, type ConfigMapObject } from '../../shared/kube/kinds.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { planConfigMap } from '../../shared/plans/store.ts';
import { controlPlaneKube, startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import { applyConfiguration, testConfiguration } from '../../harness/configuration.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';
import { readPlanNamed } from '../helpers/plans.ts';
import { aicrDataArgs } from '../helpers/aicrData.ts';

const run = promisify(execFile);
const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const asResolve = stepKube('resolve');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let candidate = '';

function status(rt: Awaited<ReturnType<typeof getRuntime>>, key: string): string | undefined {
  return (rt?.status as Record<string, unknown> | undefined)?.[key] as string | undefined;
}

async function plans(): Promise<ConfigMapObject[]> {
  return (
    await asResolve.list(KIND.configMap, { namespace: NAMESPACES.system, labelSelector: `${LABEL.role}=${ROLE.plan}` })
  ).items;
}

const candidatePlan = (): Promise<Plan> => readPlanNamed(asResolve, candidate);

/** A valid plan of other content (one value changed), as a restore might have left. */
function variant(base: Plan, n: number, owner = runtimeUID): Plan {
  const releases = base.releases.map((r, i) => (i === 0 ? { ...r, values: { ...r.values, variant: n } } : r));
  return { ...base, releases, digest: planDigest(releases), runtimeUID: owner };
}

async function reconcile(): Promise<void> {
  const before = cp.records().filter((r) => r['message'] === 'step ran' && r['step'] === 'resolve').length;
  await kubectl('annotate', 'clusterruntime', 'cluster', `${ANNOTATION.reconcileRequest}=${Date.now()}`, '--overwrite');
  await waitFor(
    'the resolve step to run',
    async () =>
      cp.records().filter((r) => r['message'] === 'step ran' && r['step'] === 'resolve').length > before
        ? true
        : undefined,
    30_000,
  );
}

async function select(selection: Record<string, unknown>): Promise<void> {
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', JSON.stringify({ spec: { selection } }));
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  // Plans of earlier runs would count in retention: start with none (a person may delete plans).
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  runtimeUID = (await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING })).metadata.uid;
  const done = await resolvedWith(
    'Resolved=True with a plan',
    (c) => c.status === 'True' && /^plan aicr-plan-/.test(c.message),
    180_000,
  );
  candidate = /^plan (aicr-plan-[0-9a-f]+)/.exec(done.message)?.[1] ?? '';
});
after(async () => {
  if (process.env['DEBUG_PLANS'])
    for (const r of cp.records())
      if (r['level'] !== 'DEBUG' && r['level'] !== 'INFO') console.error(JSON.stringify(r).slice(0, 600));
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await applyConfiguration();
});

test('PLAN-1 a resolution writes its candidate plan: named by digest, listed by the runbook command, the target under Automatic', async () => {
  const rt = await getRuntime();
  assert.equal(status(rt, 'candidatePlan'), candidate);
  assert.equal(status(rt, 'targetPlan'), candidate);
  const listed = await kubectl(
    'get',
    'configmaps',
    '-n',
    'aicr-system',
    '-l',
    'operator.aicr.run/role=plan',
    '-L',
    'operator.aicr.run/schema-version',
  );
  assert.match(listed, new RegExp(`${candidate}\\s+\\d+\\s+\\S+\\s+1\\n`), listed);
  const plan = await candidatePlan();
  assert.equal(plan.runtimeUID, runtimeUID);
  assert.equal(plan.inputs?.aicrVersion, 'v0.11.1');
  assert.match(plan.inputs?.bundle ?? '', /aicr-bundle:[0-9a-f]{16}@sha256:/);
  // Releases in the order the recipe itself reports, not the order our code produced.
  const direct = parseYaml(
    (
      await run(process.env['TESTENV_AICR_BIN'] ?? 'aicr', [
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
      ])
    ).stdout,
  ) as { deploymentOrder: string[] };
  assert.deepEqual(
    plan.releases.map((r) => r.name),
    direct.deploymentOrder,
  );
  assert.deepEqual(
    plan.releases.map((r) => r.order),
    direct.deploymentOrder.map((_, i) => i),
  );
  assert.match(plan.recipe ?? '', /kind: RecipeResult/);
});

/** Applies the Applications under other names (never meeting another test's), reads them back and rebuilds the digest. */
async function roundTrip(apps: ReturnType<typeof planToApplications>): Promise<ReturnType<typeof applicationsDigest>> {
  const kube = controlPlaneKube();
  await kubectl('create', 'namespace', NAMESPACES.argocd).catch(() => undefined);
  const prefix = `plan-rt-${Date.now().toString(36)}-`;
  try {
    for (const app of apps)
      await kube.apply(
        KIND.application,
        { ...app, metadata: { ...app.metadata, name: prefix + app.metadata.name } },
        { fieldManager: FIELD_MANAGER.rollout, force: true },
      );
    const readBack = (await kube.list(KIND.application, { namespace: NAMESPACES.argocd })).items
      .filter((a) => a.metadata.name.startsWith(prefix))
      .map((a) => ({ ...a, metadata: { ...a.metadata, name: a.metadata.name.slice(prefix.length) } }));
    return applicationsDigest(readBack);
  } finally {
    for (const app of apps) await kube.delete(KIND.application, prefix + app.metadata.name, NAMESPACES.argocd);
  }
}

/** Each component's values.yaml as a direct `aicr bundle --deployer helm` to a folder renders it. */
async function directBundleValues(components: readonly string[]): Promise<Map<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'aicr-bundle-'));
  const aicr = process.env['TESTENV_AICR_BIN'] ?? 'aicr';
  try {
    await run(aicr, [
      'recipe',
      '--service',
      'eks',
      '--accelerator',
      'h100',
      '--intent',
      'training',
      '--os',
      'ubuntu',
      '-o',
      join(dir, 'recipe.yaml'),
      ...aicrDataArgs(),
    ]);
    await run(aicr, [
      'bundle',
      '-r',
      join(dir, 'recipe.yaml'),
      '--deployer',
      'helm',
      '-o',
      join(dir, 'out'),
      ...aicrDataArgs(),
    ]);
    const out = new Map<string, unknown>();
    for (const c of components)
      out.set(c, (parseYaml(await readFile(join(dir, 'out', c, 'values.yaml'), 'utf8')) as unknown) ?? {});
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('PLAN-1 the real plan round-trips through Argo CD Applications to the same digest; each Application carries the values a direct aicr bundle renders', async () => {
  const plan = await candidatePlan();
  const apps = planToApplications(plan.releases, { runtimeUID, planDigest: plan.digest });
  const rebuilt = await roundTrip(apps);
  assert.ok(rebuilt.ok, rebuilt.ok ? '' : rebuilt.problems.join('; '));
  assert.equal(rebuilt.digest, plan.digest);
  const direct = await directBundleValues(apps.map((a) => a.metadata.name));
  for (const app of apps) {
    const helm = (app.spec.source ?? app.spec.sources?.[0])?.helm;
    const values = helm?.valuesObject ?? parseYaml(helm?.values ?? '{}');
    assert.deepEqual(
      values,
      direct.get(app.metadata.name),
      `${app.metadata.name}: its values equal the bundle's values.yaml`,
    );
  }
});

test('PLAN-1 the same inputs give the same plan and rewrite nothing', async () => {
  const before = await asResolve.get(KIND.configMap, candidate, NAMESPACES.system);
  await reconcile();
  const after = await asResolve.get(KIND.configMap, candidate, NAMESPACES.system);
  assert.equal(after?.metadata.resourceVersion, before?.metadata.resourceVersion);
  assert.equal(status(await getRuntime(), 'candidatePlan'), candidate);
});

test('PLAN-7 a pin to a plan that does not exist is NotFound naming it; the previous target stays; Automatic resumes', async () => {
  const missing = 'aicr-plan-00000000deadbeef';
  await select({ mode: 'Pinned', plan: missing });
  const c = await resolvedWith('NotFound', (x) => x.reason === 'NotFound', 30_000);
  assert.match(c.message, new RegExp(`plan ${missing} is missing`));
  assert.equal(status(await getRuntime(), 'targetPlan'), candidate, 'the previous target stays');
  await select({ mode: 'Automatic', plan: null });
  await resolvedWith('Resolved=True again', (x) => x.status === 'True', 30_000);
});

test('PLAN-5 a pin to a plan resolved for another runtime is PlanOfAnotherRuntime naming both UIDs', async () => {
  const other = '99999999-8888-7777-6666-555555555555';
  const foreign = variant(await candidatePlan(), 1, other);
  const cm = planConfigMap(foreign);
  await asResolve.create(KIND.configMap, cm);
  try {
    await select({ mode: 'Pinned', plan: cm.metadata.name });
    const c = await resolvedWith('PlanOfAnotherRuntime', (x) => x.reason === 'PlanOfAnotherRuntime', 30_000);
    assert.match(c.message, new RegExp(other));
    assert.match(c.message, new RegExp(runtimeUID));
    assert.equal(status(await getRuntime(), 'targetPlan'), candidate);
    await select({ mode: 'Automatic', plan: null });
    await resolvedWith('Resolved=True again', (x) => x.status === 'True', 30_000);
  } finally {
    await asResolve.delete(KIND.configMap, cm.metadata.name, NAMESPACES.system);
  }
});

test('PLAN-5 a candidate that records another runtime is resolved again for this one and replaces it', async () => {
  const cm = await asResolve.get(KIND.configMap, candidate, NAMESPACES.system);
  assert.ok(cm);
  await asResolve.patch(KIND.configMap, candidate, NAMESPACES.system, {
    metadata: { annotations: { [ANNOTATION.runtimeUID]: '99999999-8888-7777-6666-555555555555' } },
  });
  await reconcile();
  await waitFor(
    'the candidate to record this runtime again',
    async () => ((await candidatePlan()).runtimeUID === runtimeUID ? true : undefined),
    30_000,
  );
  assert.equal(status(await getRuntime(), 'candidatePlan'), candidate, 'same inputs, same name');
});

test('PLAN-3 a plan whose schema label disagrees is PlanUnreadable; deleting it resolves it again', async () => {
  await asResolve.patch(KIND.configMap, candidate, NAMESPACES.system, {
    metadata: { labels: { [LABEL.schemaVersion]: '2' } },
  });
  await reconcile();
  const c = await resolvedWith('PlanUnreadable', (x) => x.reason === 'PlanUnreadable', 30_000);
  assert.match(c.message, /unsupported plan schema version label "2"/);
  await kubectl('delete', 'configmap', '-n', 'aicr-system', candidate);
  await resolvedWith('Resolved=True again', (x) => x.status === 'True', 60_000);
  assert.equal((await candidatePlan()).digest.length > 0, true, 'written again, readable');
});

test('a bundle gone from the registry is BundleUnreadable naming it; nothing is written and the target stays', async () => {
  const records = await asResolve.list(KIND.configMap, {
    namespace: NAMESPACES.jobs,
    labelSelector: `${LABEL.stage}=render`,
  });
  const record = records.items[0];
  assert.ok(record?.data?.['bundle']);
  const real = record.data['bundle'];
  const gone = real.replace(/@sha256:[0-9a-f]{64}$/, `@sha256:${'0'.repeat(64)}`);
  const countBefore = (await plans()).length;
  await asResolve.patch(KIND.configMap, record.metadata.name, NAMESPACES.jobs, {
    data: { bundle: gone, [RECORD_PLAN_KEY]: null },
  });
  try {
    await reconcile();
    const c = await resolvedWith('BundleUnreadable', (x) => x.reason === 'BundleUnreadable', 30_000);
    assert.match(c.message, new RegExp(`sha256:${'0'.repeat(64)}`));
    assert.equal((await plans()).length, countBefore);
    assert.equal(status(await getRuntime(), 'targetPlan'), candidate);
  } finally {
    await asResolve.patch(KIND.configMap, record.metadata.name, NAMESPACES.jobs, { data: { bundle: real } });
  }
  await reconcile();
  await resolvedWith('Resolved=True again', (x) => x.status === 'True', 60_000);
});

test('PLAN-8 retention keeps the configured number of older plans and never removes the target or a pinned plan', async () => {
  const base = await candidatePlan();
  const older = [1, 2, 3, 4, 5, 6].map((n) => variant(base, 10 + n));
  for (const p of older) await asResolve.create(KIND.configMap, planConfigMap(p));
  const pinned = planConfigMap(older[0] as Plan).metadata.name;
  await applyConfiguration({ ...testConfiguration(), plans: { keep: 2 } });
  await select({ mode: 'Pinned', plan: pinned });
  await resolvedWith('the pin taken', (x) => x.status === 'True' && x.message.includes(pinned), 30_000);
  // Retention runs when a plan is written: have the candidate written again.
  await kubectl('delete', 'configmap', '-n', 'aicr-system', candidate);
  await waitFor('retention to leave four plans', async () => ((await plans()).length === 4 ? true : undefined), 60_000);
  const left = new Set((await plans()).map((p) => p.metadata.name));
  assert.ok(left.has(candidate), 'the candidate stays');
  assert.ok(left.has(pinned), 'the pinned target stays, although it is the oldest');
  assert.equal(status(await getRuntime(), 'targetPlan'), pinned);
  await select({ mode: 'Automatic', plan: null });
  await resolvedWith('Automatic again', (x) => x.status === 'True' && x.message.includes('it is the target'), 30_000);
  for (const name of left) if (name !== candidate) await asResolve.delete(KIND.configMap, name, NAMESPACES.system);
});

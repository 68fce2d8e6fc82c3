// The drift-check step on the test cluster, with Argo CD's own application controller: between rollouts
// a deleted owned Application is written again from the active plan (ROL-8), except a release an
// unsuccessful rollout moved (ROL-5, proven by the audit log to write nothing before approval);
// a lost active plan is rebuilt from the Applications (PLAN-4); a rollout of a newer schema stops
// every write to Argo CD (PLAN-2). Only the rollout and drift-check steps run; each test settles
// resolution on the plan it wants (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, LABEL, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { planDigest, planName } from '../../shared/plans/digest.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { appReaches, deleteApp, patchApp } from '../helpers/argocd.ts';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { UPGRADE_CHECK_AICR_VERSION, testConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  assertNoApplicationWrite,
  awaitingRollout,
  clearRolloutStage,
  failingSoon,
  released,
  rollout,
  rolloutsOf,
  stalledOn,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const STEPS = STEP_TABLE.filter((r) => r.name === 'rollout' || r.name === 'drift-check');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let planA = '';

const at = (version: string, extra: Partial<Release> = {}): Release[] =>
  ['alpha', 'bravo', 'charlie'].map((name, i) => chartRelease(name, i, version, extra));
const activeIs = (plan: string) =>
  released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan), 60_000);

async function inventory(
  what: string,
  ok: (status: string, reason: string, message: string) => boolean,
  timeoutMs = 30_000,
): Promise<string> {
  let last: unknown;
  try {
    return await waitFor(
      what,
      async () => {
        const c = condition(await getRuntime(), 'InventoryConsistent');
        last = c;
        return c && ok(c.status, c.reason, c.message) ? c.message : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; InventoryConsistent was ${JSON.stringify(last)}`, { cause: err });
  }
}

async function runtimeEvents(reason: string): Promise<string> {
  return kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=cluster,reason=${reason}`,
    '-o',
    'jsonpath={.items[*].message}',
  );
}

/** The chart version an Application stands for: pinned by digest, it keeps the version in an annotation. */
async function chartVersion(release: string): Promise<string | undefined> {
  const app = await stepKube('rollout').get(KIND.application, release, NAMESPACES.argocd);
  return app?.metadata.annotations?.[ANNOTATION.chartVersion];
}

/** The digest an Application's source is pinned to (SEC-9). */
async function chartPin(release: string): Promise<string | undefined> {
  const app = await stepKube('rollout').get(KIND.application, release, NAMESPACES.argocd);
  return (app as { spec?: { source?: { targetRevision?: string } } } | undefined)?.spec?.source?.targetRevision;
}

/** What each fixture chart's push gave, `<chart>@<version>` to manifest digest. */
const pushed = new Map<string, string>();

/** Successful writes by the drift check's identity since the mark, as "verb resource/name". */
async function driftWrites(mark: number): Promise<string[]> {
  await settleAudit();
  return auditSince(mark)
    .filter(
      (e) =>
        e.impersonatedUser?.username === 'aicr-step-drift-check' &&
        ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
        (e.responseStatus?.code ?? 0) < 300,
    )
    .filter((e) => e.objectRef?.resource !== 'events' && e.objectRef?.subresource !== 'status')
    .map((e) => `${e.verb} ${e.objectRef?.resource ?? ''}/${e.objectRef?.name ?? ''}`);
}

/** Writes the plan as resolution would, replacing one an earlier run rebuilt (which has no recipe and says so). */
async function freshPlan(releases: Release[]): Promise<string> {
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planName(planDigest(releases)), '--ignore-not-found');
  return (await storePlan(runtimeUID, releases)).name;
}

const someLooks = (): Promise<void> => new Promise((r) => setTimeout(r, 3_000));

before(async () => {
  await clearRolloutStage({ configuration: { ...testConfiguration(), drift: { checkInterval: '2s' } } });
  for (const name of ['alpha', 'bravo', 'charlie'])
    for (const version of ['1.0.0', '1.1.0']) pushed.set(`${name}@${version}`, await pushChart(name, version));
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: STEPS });
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '60s',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  planA = await freshPlan(at('1.0.0'));
  await target(planA);
  await approve((await awaitingRollout(planA)).metadata.name);
  await activeIs(planA);
});

after(async () => {
  if (process.env['DEBUG_DRIFT'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  await stopAndClear(cp);
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planA, planB, '--ignore-not-found');
});

test('ROL-8 SEC-9 an owned Application deleted outside a rollout is written again from the active plan, pinned to the same digest, with an ApplicationRecreated Event and no rollout', async () => {
  const pin = await chartPin('bravo');
  assert.equal(pin, pushed.get('bravo@1.0.0'), 'the rollout pinned the chart it approved');
  await inventory('InventoryConsistent=True', (status) => status === 'True');
  const rollouts = (await rolloutsOf(runtimeUID)).length;
  const mark = auditMark();
  await deleteApp('bravo');
  const back = await appReaches(
    'bravo',
    'is written again',
    (app) => app !== undefined && !app.metadata.deletionTimestamp,
    20_000,
  );
  assert.equal(back?.metadata.annotations?.[ANNOTATION.runtimeUID], runtimeUID);
  assert.equal(await chartVersion('bravo'), '1.0.0', 'at the active plan');
  assert.equal(await chartPin('bravo'), pin, 'the re-create writes the same pin (SEC-9)');
  const digest = back?.metadata.annotations?.[ANNOTATION.planDigest] ?? '';
  assert.ok(planA.endsWith(digest.replace(/^sha256:/, '').slice(0, 16)), `annotated with the active plan ${planA}`);
  assert.match(
    await runtimeEvents('ApplicationRecreated'),
    new RegExp(`Application argocd/bravo was deleted outside a rollout .*written again from the active plan ${planA}`),
  );
  assert.deepEqual(
    (await driftWrites(mark)).filter((w) => w.startsWith('patch applications') || w.startsWith('create applications'))
      .length > 0,
    true,
    'the drift check wrote it',
  );
  await inventory(
    'InventoryConsistent=True again',
    (status, reason, message) => status === 'True' && reason === 'InventoryConsistent' && message.includes(planA),
  );
  assert.equal((await rolloutsOf(runtimeUID)).length, rollouts, 'no rollout was created for it');
  assert.equal(condition(await getRuntime(), 'Released')?.status, 'True');
});

test('PLAN-4 the active plan deleted is rebuilt from the Applications to the same digest and written back with a PlanRebuilt Event, without a recipe', async () => {
  const mark = auditMark();
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planA);
  const cm = await waitFor(
    'the active plan written back',
    () => stepKube('rollout').get(KIND.configMap, planA, NAMESPACES.system),
    20_000,
  );
  const read = readPlanConfigMap(cm);
  assert.ok(read.ok, 'the rebuilt plan reads back');
  assert.equal(read.plan.recipe, undefined, 'a rebuilt plan has no recipe');
  assert.equal(read.plan.runtimeUID, runtimeUID);
  assert.deepEqual(
    await driftWrites(mark),
    [`create configmaps/${planA}`],
    'one create, by the drift check: the admission policy lets it create plans',
  );
  assert.match(
    await runtimeEvents('PlanRebuilt'),
    new RegExp(`the active plan ${planA} was missing; rebuilt from the owned Argo CD Applications to the same digest`),
  );
  await inventory('InventoryConsistent=True', (status) => status === 'True');
  await assertNoApplicationWrite(mark);
});

test('PLAN-4 the drift check cannot change a plan: the admission policy lets its group create plans only', async () => {
  const cm = await stepKube('drift-check').get(KIND.configMap, planA, NAMESPACES.system);
  assert.ok(cm);
  await assert.rejects(
    stepKube('drift-check').patch(KIND.configMap, planA, NAMESPACES.system, {
      metadata: { labels: { [LABEL.schemaVersion]: '1', extra: 'x' } },
    }),
    (err: Error) => /forbidden|denied/i.test(err.message),
  );
});

test('PLAN-6 a rollout to a rebuilt plan while validation is Required: PlanWithoutRecipe with the three fixes and nothing written; with validation Disabled it is created and needs approval', async () => {
  const rollouts = (await rolloutsOf(runtimeUID)).length;
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    '{"spec":{"validation":{"deployment":"Required"}}}',
  );
  const mark = auditMark();
  // An edit by hand: the active plan no longer matches the Applications, so the rollout step wants a rollout back to it.
  await patchApp('charlie', {
    metadata: { annotations: { [ANNOTATION.chartVersion]: '1.1.0' } },
    spec: { source: { targetRevision: pushed.get('charlie@1.1.0') } },
  });
  const c = await released('PlanWithoutRecipe', (reason) => reason === 'PlanWithoutRecipe');
  assert.match(
    c.message,
    new RegExp(
      `the target plan ${planA} was rebuilt from the Argo CD Applications, so it has no recipe, and spec.validation.deployment is Required`,
    ),
  );
  assert.match(
    c.message,
    /Change the inputs so that resolution reproduces the plan .*; pin another plan \(spec.selection\); or set spec.validation.deployment: Disabled for this rollout/,
  );
  await stalledOn('PlanWithoutRecipe');
  await someLooks();
  await assertNoApplicationWrite(mark);
  assert.equal((await rolloutsOf(runtimeUID)).length, rollouts, 'no rollout is created');
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    '{"spec":{"validation":{"deployment":"Disabled"}}}',
  );
  try {
    const back = await awaitingRollout(planA);
    assert.deepEqual(
      back.spec.steps.map((s) => s.release),
      ['charlie'],
    );
    await assertNoApplicationWrite(mark);
    await approve(back.metadata.name);
    await activeIs(planA);
    assert.equal(await chartVersion('charlie'), '1.0.0', 'charlie is back at the rebuilt plan');
  } finally {
    await kubectl(
      'patch',
      'clusterruntime',
      'cluster',
      '--type',
      'merge',
      '-p',
      '{"spec":{"validation":{"deployment":"Disabled"}}}',
    );
  }
});

let failed = '';
let planB = '';

test('ROL-5 a release a failed rollout moved loses its Application: MovedReleaseMissing, nothing is written from the active plan; a retry installs it at the target after a fresh approval', async () => {
  await failingSoon(() =>
    withKnob(holdReleasePods(['ns-bravo']), async () => {
      planB = await freshPlan(at('1.1.0'));
      await target(planB);
      failed = (await awaitingRollout(planB)).metadata.name;
      await approve(failed);
      await released('RolloutFailed', (reason) => reason === 'RolloutFailed', 45_000);
    }),
  );
  assert.equal(await chartVersion('alpha'), '1.1.0', 'alpha was moved to the target plan');
  const mark = auditMark();
  await deleteApp('alpha');
  const message = await inventory(
    'MovedReleaseMissing',
    (status, reason) => status === 'False' && reason === 'MovedReleaseMissing',
  );
  assert.match(
    message,
    new RegExp(
      `alpha \\(moved to plan ${planB} by rollout ${failed}\\).*not written again from the active plan ${planA}.*kubectl aicr retry ${failed}`,
    ),
  );
  await stalledOn('MovedReleaseMissing');
  await someLooks();
  await assertNoApplicationWrite(mark);
  assert.equal(await chartVersion('alpha'), undefined, 'alpha stays gone');

  const run = await kubectlAicr(['retry', failed, '--timeout', '30s'], 'alice');
  assert.equal(run.code, 0, run.stderr);
  const fresh = await awaitingRollout(planB);
  assert.ok(
    fresh.spec.steps.some((s) => s.action === 'Install' && s.release === 'alpha'),
    'the new rollout installs alpha',
  );
  assert.equal(fresh.spec.approval, undefined, 'it needs a fresh approval');
  await someLooks();
  await assertNoApplicationWrite(mark);
  await approve(fresh.metadata.name);
  await activeIs(planB);
  assert.equal(await chartVersion('alpha'), '1.1.0', 'alpha is installed at the target plan');
  await inventory('InventoryConsistent=True on plan B', (status, _, m) => status === 'True' && m.includes(planB));
});

test('ROL-5 reverting the target after a failed rollout moved a now-missing release creates a rollout back that installs it at the active plan, only after approval', async () => {
  let planC = '';
  await failingSoon(() =>
    withKnob(holdReleasePods(['ns-bravo']), async () => {
      planC = await freshPlan(at('1.0.0', { values: { rol5: 'revert' } }));
      await target(planC);
      const r = await awaitingRollout(planC);
      await approve(r.metadata.name);
      await released('RolloutFailed', (reason) => reason === 'RolloutFailed', 45_000);
    }),
  );
  const mark = auditMark();
  await deleteApp('alpha');
  await inventory(
    'MovedReleaseMissing',
    (status, reason, message) => status === 'False' && reason === 'MovedReleaseMissing' && message.includes(planC),
  );
  // The runtime change behind planC reverted: the target is the active plan again.
  await target(planB);
  const back = await awaitingRollout(planB);
  assert.equal(back.spec.fromPlan, planC);
  assert.ok(
    back.spec.steps.some((s) => s.action === 'Install' && s.release === 'alpha'),
    'the rollout back installs alpha',
  );
  await someLooks();
  await assertNoApplicationWrite(mark);
  await approve(back.metadata.name);
  await activeIs(planB);
  assert.equal(await chartVersion('alpha'), '1.1.0', 'alpha is installed at the active plan');
  await inventory('InventoryConsistent=True', (status) => status === 'True');
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planC, '--ignore-not-found');
});

test('PLAN-2 a rollout written in a newer schema stops the drift check and the rollout step with PlanUnreadable; nothing is written to Argo CD and the rollout is never rewritten', async () => {
  const last = await rollout((await rolloutsOf(runtimeUID)).at(-1)?.metadata.name ?? '');
  const newer = {
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'RuntimeRollout',
    metadata: { name: 'aicr-rollout-newer-schema', labels: { [LABEL.schemaVersion]: '2' } },
    // Created by the control plane's identity: without a person's fields (SEC-7).
    spec: {
      ...last.spec,
      approval: undefined,
      retry: undefined,
      acknowledgements: undefined,
      revocation: undefined,
      disruption: undefined,
    },
  };
  await stepKube('rollout').create(
    KIND.runtimeRollout,
    JSON.parse(JSON.stringify(newer)) as { metadata: { name: string } },
  );
  try {
    const written = (await stepKube('rollout').get(KIND.runtimeRollout, newer.metadata.name))?.metadata.resourceVersion;
    const message = await inventory(
      'PlanUnreadable',
      (status, reason) => status === 'False' && reason === 'PlanUnreadable',
    );
    assert.match(
      message,
      /rollout aicr-rollout-newer-schema \(schema version "2", this control plane reads "1"\); upgrade the control plane/,
    );
    await released('PlanUnreadable on Released', (reason) => reason === 'PlanUnreadable');
    const mark = auditMark();
    await deleteApp('charlie');
    await someLooks();
    await assertNoApplicationWrite(mark);
    assert.equal(await chartVersion('charlie'), undefined, 'charlie is not written again while a newer rollout exists');
    assert.equal(
      (await stepKube('rollout').get(KIND.runtimeRollout, newer.metadata.name))?.metadata.resourceVersion,
      written,
      'the newer rollout is never rewritten',
    );
  } finally {
    await kubectl('delete', 'runtimerollout', newer.metadata.name, '--ignore-not-found');
  }
  await appReaches('charlie', 'is written again once the newer rollout is gone', (app) => app !== undefined, 20_000);
  await inventory('InventoryConsistent=True', (status) => status === 'True');
});

test('PLAN-4 the active plan deleted after an Application was edited outside the control plane: PlanMissing names both plans and nothing is written', async () => {
  await patchApp('charlie', { spec: { source: { helm: { valuesObject: { editedByHand: true } } } } });
  const mark = auditMark();
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planB);
  const message = await inventory('PlanMissing', (status, reason) => status === 'False' && reason === 'PlanMissing');
  assert.match(
    message,
    new RegExp(
      `the active plan ${planB} is missing from aicr-system and cannot be written back: the owned Applications rebuild to plan aicr-plan-[0-9a-f]{16} \\(digest sha256:[0-9a-f]{64}\\), not ${planB}, so one was edited outside the control plane. The next rollout assesses every upgrade unknown and needs approval`,
    ),
  );
  await stalledOn('PlanMissing');
  await someLooks();
  assert.deepEqual(await driftWrites(mark), [], 'no plan and no Application is written');
  await assertNoApplicationWrite(mark);
  assert.equal(await stepKube('rollout').get(KIND.configMap, planB, NAMESPACES.system), undefined);
  // The next rollout, to a new target, is assessed unknown throughout and waits for approval,
  // even under an AICR with upgrade-check: there is no active plan to assess from.
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { aicrVersion: UPGRADE_CHECK_AICR_VERSION } }),
  );
  const next = await freshPlan(at('1.1.0', { values: { plan4: true } }));
  await target(next);
  const r = await awaitingRollout(next);
  assert.equal(r.spec.fromPlan, planB, 'from the missing active plan');
  assert.ok(r.spec.steps.length >= 3, `every release is a step: ${JSON.stringify(r.spec.steps)}`);
  for (const s of r.spec.steps) {
    assert.equal(s.verdict, 'unknown', `${s.release} is assessed unknown`);
    assert.equal(s.why, 'there is no active plan to assess the move from, so it needs approval');
  }
  assert.equal(r.spec.approval, undefined, 'it waits for approval');
  await someLooks();
  assert.equal(
    (await rollout(r.metadata.name)).status?.steps?.some((s) => s.startedAt !== undefined) ?? false,
    false,
    'no step starts without approval',
  );
  await assertNoApplicationWrite(mark);
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, next, '--ignore-not-found');
});

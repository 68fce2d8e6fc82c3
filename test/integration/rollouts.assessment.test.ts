// The rollout assessment on the test cluster: a runtime on AICR v0.17.0, pinned to the stand-in
// image that answers `aicr upgrade-check` itself (test/env/node/upgradeCheck.ts, steered by a
// test knob) and hands recipe, bundle and snapshot to the real aicr v0.11.1. Resolution is
// real; the plans after it are written as resolution would write them, each with a recipe whose
// componentRef for the moved component differs, so upgrade-check has two recipes to compare.
// The runtime is paused, so no approved rollout writes to Argo CD.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Watch, type V1Job } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { ANNOTATION, IDENTITY_USER, LABEL, NAMESPACES, ROLE, ROLLOUT_CONDITION } from '../../shared/api/constants.ts';
import { STAGE, assessmentOutputName } from '../../shared/aicr/stages.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { planToApplications } from '../../shared/plans/applications.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';
import { auditMark, auditSince } from '../../harness/audit.ts';
import { UPGRADE_CHECK_AICR_VERSION, applyConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { batch } from '../helpers/cluster.ts';
import { adminKubeConfig } from '../../harness/env.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { forceAicrExit, steerUpgradeCheck, withKnob } from '../helpers/knobs.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import {
  assertNoApplicationWrite,
  clearApplications,
  released,
  rolloutsOf,
  select,
  writePlan,
} from '../../harness/rollouts.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';
import { UPGRADE_CHECK_STAND_IN_IMAGE } from '../../harness/imageNames.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const asResolve = stepKube('resolve');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let candidate = '';
let mark = 0;
let active!: { name: string; plan: Plan };
/** Every AICR Job created since the file began, in order: a run number can be used again once its Job is deleted. */
const jobs: { name: string; stage: string; image: string }[] = [];
let stopWatch: () => void = () => undefined;

/** Watches from now on only: Jobs other test files left behind are not this file's runs. */
async function watchJobs(): Promise<void> {
  const from = (await batch().listJobForAllNamespaces({ labelSelector: LABEL.stage })).metadata?.resourceVersion;
  const abort = await new Watch(adminKubeConfig()).watch(
    '/apis/batch/v1/jobs',
    { labelSelector: LABEL.stage, resourceVersion: from },
    (type, job: V1Job) => {
      if (type === 'ADDED')
        jobs.push({
          name: job.metadata?.name ?? '',
          stage: job.metadata?.labels?.[LABEL.stage] ?? '',
          image: job.spec?.template.spec?.containers[0]?.image ?? '',
        });
    },
    () => undefined,
  );
  stopWatch = () => abort.abort();
}

const assessmentJobs = (): string[] => jobs.filter((j) => j.stage === STAGE.assessment).map((j) => j.name);

/** Assessment Jobs created since there were `before`. */
const newAssessmentJobs = (before: number): string[] => assessmentJobs().slice(before);

async function readPlan(name: string): Promise<Plan> {
  const cm = await asResolve.get(KIND.configMap, name, NAMESPACES.system);
  assert.ok(cm, `plan ${name} exists`);
  const read = readPlanConfigMap(cm);
  assert.ok(read.ok, read.ok ? '' : read.problem);
  return read.plan;
}

/** The recipe with `component`'s componentRef carrying `overrides`, as AICR would render a values change. */
function recipeWith(recipe: string | undefined, component: string, overrides: Record<string, unknown>): string {
  const doc = parse(recipe ?? '') as { componentRefs: Record<string, unknown>[] };
  const ref = doc.componentRefs.find((c) => c['name'] === component);
  assert.ok(ref, `the recipe has component ${component}`);
  ref['overrides'] = overrides;
  return stringify(doc);
}

/** A plan from `base` whose `component` has other Helm values, its recipe saying so. */
function planMoving(base: Plan, component: string, mark: string): Promise<{ name: string; plan: Plan }> {
  const values = { assessTest: mark };
  return writePlan({ ...base, recipe: recipeWith(base.recipe, component, values) }, (r) =>
    r.name === component ? { ...r, values: { ...r.values, ...values } } : r,
  );
}

/** The components of the active plan in deployment order. */
function components(): string[] {
  return [...active.plan.releases].sort((a, b) => a.order - b.order).map((r) => r.name);
}

/** The input hash of the assessment whose verdicts are recorded now (the output ConfigMap, not a recipe copy). */
async function recordedAssessment(): Promise<{ hash: string; report: string }> {
  const out = JSON.parse(
    await kubectl(
      'get',
      'configmaps',
      '-n',
      NAMESPACES.jobs,
      '-l',
      `${LABEL.stage}=${STAGE.assessment},!${LABEL.role}`,
      '-o',
      'json',
    ),
  ) as { items: { metadata: { labels: Record<string, string> }; data: Record<string, string> }[] };
  assert.equal(out.items.length, 1, 'one assessment output is kept');
  const cm = out.items[0];
  return { hash: cm?.metadata.labels[LABEL.input] ?? '', report: Object.values(cm?.data ?? {})[0] ?? '' };
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  await kubectl('delete', 'runtimerollouts', '--all');
  await kubectl('create', 'namespace', NAMESPACES.argocd).catch(() => undefined);
  await clearApplications();
  await watchJobs();
  mark = auditMark();
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  runtimeUID = (
    await createRuntime({
      aicrVersion: UPGRADE_CHECK_AICR_VERSION,
      criteria: TRAINING,
      paused: true,
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const done = await resolvedWith(
    'Resolved=True with a plan',
    (c) => c.status === 'True' && /^plan aicr-plan-/.test(c.message),
    180_000,
  );
  candidate = /^plan (aicr-plan-[0-9a-f]+)/.exec(done.message)?.[1] ?? '';
});

after(async () => {
  stopWatch();
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await applyConfiguration();
});

test('TRN-1 JOB-8 a runtime on AICR v0.17.0 (the stand-in upgrade-check image) resolves with the real recipe and bundle; its first rollout has no active plan to compare from, so no assessment runs and every release is an Install assessed unknown, awaiting approval', async () => {
  await released('Released=False AwaitingApproval', (reason) => reason === 'AwaitingApproval', 60_000);
  const [r, ...more] = await rolloutsOf(runtimeUID);
  assert.ok(r, 'a rollout exists');
  assert.equal(more.length, 0);
  assert.equal(r.spec.toPlan, candidate);
  for (const s of r.spec.steps) assert.deepEqual([s.action, s.verdict], ['Install', 'unknown']);
  assert.match(r.spec.steps[0]?.why ?? '', /there is no active plan to assess the move from, so it needs approval/);
  const ran = [...jobs];
  assert.deepEqual([...new Set(ran.map((j) => j.stage))].sort(), ['recipe', 'render', 'snapshot']);
  assert.ok(
    ran.every((j) => j.image === UPGRADE_CHECK_STAND_IN_IMAGE),
    `every AICR run used the pinned image: ${JSON.stringify(ran)}`,
  );
  assert.deepEqual(assessmentJobs(), []);
});

test("TRN-1 JOB-8 a values change the stand-in upgrade-check assesses safe: one assessment Job of the pinned image in aicr-jobs, the step carries AICR's verdict and the rollout needs no approval (only the pause holds it)", async () => {
  const base = await readPlan(candidate);
  // An active plan: its Applications stand in Argo CD as if rolled out, and it is pinned.
  active = await planMoving(base, [...base.releases].sort((a, b) => b.order - a.order)[0]?.name ?? '', 'active');
  await kubectlApply(...planToApplications(active.plan.releases, { runtimeUID, planDigest: active.plan.digest }));
  await select({ mode: 'Pinned', plan: active.name });
  await released(
    `Released=True on ${active.name}`,
    (reason, message) => reason === 'Released' && message.includes(active.name),
  );
  assert.deepEqual(assessmentJobs(), [], 'no assessment without an active plan to compare from');
  const moved = components()[1] ?? '';
  const next = await planMoving(active.plan, moved, 'safe');
  await select({ mode: 'Pinned', plan: next.name });
  const r = await waitFor(
    'a rollout to the changed plan',
    async () => (await rolloutsOf(runtimeUID)).find((x) => x.spec.toPlan === next.name),
    60_000,
  );
  const held = await released(
    'Released=False RolloutProgressing, held by the pause',
    (reason, message) =>
      reason === 'RolloutProgressing' && message.includes(r.metadata.name) && message.includes('paused'),
  );
  assert.match(held.message, /holds at step 1 of 1/);
  assert.equal(r.spec.fromPlan, active.name);
  assert.deepEqual(
    r.spec.steps.map((s) => [s.release, s.action, s.verdict, s.valuesChanged]),
    [[moved, 'Upgrade', 'safe', ['assessTest']]],
  );
  assert.match(r.spec.steps[0]?.why ?? '', /^aicr upgrade-check assessed it safe \(STAND_IN_VALUES_CHANGED\)$/);
  const approved = await waitFor('Approved=True', async () => {
    const c = condition(
      (await rolloutsOf(runtimeUID)).find((x) => x.metadata.name === r.metadata.name) as never,
      ROLLOUT_CONDITION.approved,
    );
    return c?.status === 'True' ? c : undefined;
  });
  assert.equal(approved.reason, 'AssessedSafe');
  const { hash, report } = await recordedAssessment();
  const [job, ...others] = assessmentJobs();
  assert.deepEqual([job, others], [`aicr-assessment-${hash}-1`, []]);
  assert.equal(jobs.find((j) => j.name === job)?.image, UPGRADE_CHECK_STAND_IN_IMAGE);
  const parsed = JSON.parse(report) as { standIn: string; components: { name: string; verdict: string }[] };
  assert.match(parsed.standIn, /STAND-IN/);
  assert.deepEqual(
    parsed.components.filter((c) => c.name === moved).map((c) => c.verdict),
    ['safe'],
  );
  await assertNoApplicationWrite(mark);
});

test('TRN-1 a component the stand-in upgrade-check says needs operator steps gives a manual step, and the rollout waits for approval', async () => {
  const moved = components()[2] ?? '';
  const before = assessmentJobs().length;
  await withKnob(steerUpgradeCheck({ [moved]: { verdict: 'manual', reason: 'STAND_IN_OPERATOR_STEPS' } }), async () => {
    const next = await planMoving(active.plan, moved, 'manual');
    await select({ mode: 'Pinned', plan: next.name });
    const waiting = await released(
      'Released=False AwaitingApproval',
      (reason, message) => reason === 'AwaitingApproval' && message.includes(next.name),
    );
    const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
    const r = (await rolloutsOf(runtimeUID)).find((x) => x.metadata.name === name);
    assert.deepEqual(
      r?.spec.steps.map((s) => [s.release, s.action, s.verdict]),
      [[moved, 'Upgrade', 'manual']],
    );
    assert.match(
      r?.spec.steps[0]?.why ?? '',
      /^aicr upgrade-check says it needs operator steps \(STAND_IN_OPERATOR_STEPS\)$/,
    );
    assert.equal(newAssessmentJobs(before).length, 1);
  });
});

/** Requests a snapshot and waits until it is resolved: a new snapshot, a new bundle, a plan named again. */
async function resnapshot(value: string): Promise<void> {
  const before = condition(await getRuntime(), 'Resolved')?.message;
  await kubectl('annotate', 'clusterruntime', 'cluster', `${ANNOTATION.resnapshot}=${value}`, '--overwrite');
  await resolvedWith(
    'Resolved=True from the new snapshot',
    (c) => c.status === 'True' && c.message.startsWith('plan ') && c.message !== before,
    120_000,
  );
}

/** Waits until the rollout step has read an assessment's recorded verdicts after `since`. */
async function recordRead(hash: string, since: number): Promise<void> {
  const user = IDENTITY_USER.step('rollout');
  await waitFor(
    'the rollout step to read the recorded verdicts',
    async () =>
      auditSince(since).some(
        (e) =>
          e.verb === 'get' && e.objectRef?.name === assessmentOutputName(hash) && e.impersonatedUser?.username === user,
      )
        ? true
        : undefined,
    30_000,
  );
}

test('TRN-1 JOB-8 a component the stand-in assesses blocked is TransitionBlocked naming it, with no rollout; the verdicts are keyed on the two recipes, so a resnapshot runs no second assessment while another target recipe does; pinning the active plan clears it', async () => {
  const blocked = components()[0] ?? '';
  await withKnob(steerUpgradeCheck({ [blocked]: { verdict: 'blocked', reason: 'STAND_IN_NO_PATH' } }), async () => {
    const next = await planMoving(active.plan, blocked, 'blocked');
    const [count, before] = [(await rolloutsOf(runtimeUID)).length, assessmentJobs().length];
    await select({ mode: 'Pinned', plan: next.name });
    const c = await released(
      'Released=False TransitionBlocked',
      (reason, message) => reason === 'TransitionBlocked' && message.includes(next.name),
    );
    assert.match(c.message, new RegExp(`${blocked}: aicr upgrade-check assessed it blocked \\(STAND_IN_NO_PATH\\)`));
    assert.match(c.message, /No rollout is created/);
    assert.equal((await rolloutsOf(runtimeUID)).length, count);
    const { hash } = await recordedAssessment();
    assert.deepEqual(newAssessmentJobs(before), [`aicr-assessment-${hash}-1`]);
    const atResnapshot = assessmentJobs().length;
    // The request wakes the rollout step, which reads the recorded verdicts; the resolution that
    // follows names the same plans, so nothing the step reads moves and no further look is due.
    const asked = auditMark();
    await resnapshot('assessment-1');
    await recordRead(hash, asked);
    assert.deepEqual(
      newAssessmentJobs(atResnapshot),
      [],
      'the same two recipes after a new snapshot: no second assessment',
    );
    assert.equal(condition(await getRuntime(), 'Released')?.reason, 'TransitionBlocked');
    const other = await planMoving(active.plan, blocked, 'blocked-elsewhere');
    await select({ mode: 'Pinned', plan: other.name });
    await released(
      'Released=False TransitionBlocked for the other plan',
      (reason, message) => reason === 'TransitionBlocked' && message.includes(other.name),
    );
    const second = await recordedAssessment();
    assert.notEqual(second.hash, hash);
    assert.deepEqual(newAssessmentJobs(atResnapshot), [`aicr-assessment-${second.hash}-1`]);
  });
  await select({ mode: 'Pinned', plan: active.name });
  await released(
    'Released=True on the active plan again',
    (reason, message) => reason === 'Released' && message.includes(active.name),
  );
  await assertNoApplicationWrite(mark);
});

test('JOB-8 three failed assessment runs (exit 2 without a report is a failed run, not an answer) stall the move with AICRStageStalled saying how to run it again; deleting the failed aicr-assessment Jobs runs it again', async () => {
  const moved = components()[1] ?? '';
  const next = await planMoving(active.plan, moved, 'stall');
  const before = assessmentJobs().length;
  let hash = '';
  await withKnob(
    forceAicrExit('upgrade-check', 2, 'error: [INVALID_REQUEST] forced by a test knob\n', { times: 3 }),
    async () => {
      await select({ mode: 'Pinned', plan: next.name });
      const stalled = await released(
        'Released=False AICRStageStalled',
        (reason) => reason === 'AICRStageStalled',
        90_000,
      );
      assert.match(stalled.message, /^the move cannot be assessed: aicr assessment failed 3 times for the same inputs/);
      hash = new RegExp(`-l ${LABEL.stage}=assessment,${LABEL.input}=([0-9a-f]{16})`).exec(stalled.message)?.[1] ?? '';
      assert.deepEqual(
        newAssessmentJobs(before),
        [1, 2, 3].map((n) => `aicr-assessment-${hash}-${n}`),
      );
      assert.equal(
        (await rolloutsOf(runtimeUID)).filter((r) => r.spec.toPlan === next.name).length,
        0,
        'no rollout while the move cannot be assessed',
      );
    },
  );
  await kubectl(
    'delete',
    'jobs',
    '-n',
    NAMESPACES.jobs,
    '-l',
    `${LABEL.stage}=${STAGE.assessment},${LABEL.input}=${hash}`,
  );
  const r = await waitFor(
    'a rollout once the assessment ran again',
    async () => (await rolloutsOf(runtimeUID)).find((x) => x.spec.toPlan === next.name),
    60_000,
  );
  assert.deepEqual(
    r.spec.steps.map((s) => [s.release, s.verdict]),
    [[moved, 'safe']],
  );
  // kubectl deletes the three one by one; a look between two deletions numbers the new run after the ones left.
  const runs = newAssessmentJobs(before);
  assert.deepEqual(
    runs.slice(0, 3),
    [1, 2, 3].map((n) => `aicr-assessment-${hash}-${n}`),
  );
  assert.equal(runs.length, 4, 'one more run');
  assert.match(runs[3] ?? '', new RegExp(`^aicr-assessment-${hash}-[1-4]$`));
  await select({ mode: 'Pinned', plan: active.name });
  await released(
    'Released=True on the active plan again',
    (reason, message) => reason === 'Released' && message.includes(active.name),
  );
});

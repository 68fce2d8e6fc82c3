// Deployment validation as the rollout's last phase, on the test cluster with the real AICR
// v0.11.1 `aicr validate`, its real deployment validator and the real chainsaw. Each test chooses
// its recipe's deployment checks through a --data overlay when the recipe is built; a failing run
// fails through a check that fails at once (operator-health with no GPU operator Pods). The
// snapshot step takes the snapshot (-s); each test settles resolution itself (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL, NAMESPACES } from '../../shared/api/constants.ts';
import { parseReport } from '../../shared/aicr/ctrf.ts';
import { discoveryOf } from '../../shared/discovery/status.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { Release } from '../../shared/plans/release.ts';
import type { RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { DEPLOYMENT_VALIDATOR_IMAGE } from '../../harness/imageNames.ts';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { forceAicrExit, withKnob } from '../helpers/knobs.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearRolloutStage,
  released,
  rollout,
  rolloutsOf,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { createRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';
import {
  GPU_OPERATOR,
  deploymentAssert,
  pinnedConfiguration,
  removeGpuOperator,
  runGpuOperator,
  validationRecipe,
} from '../helpers/validation.ts';

const TABLE = STEP_TABLE.filter((r) => r.name === 'snapshot' || r.name === 'rollout');
/** A person's own validation run, elsewhere: the control plane must leave it alone (VAL-5). */
const PERSON_NS = 'person-validation';
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let version = 0;
let failedByValidation = ''; // the rollout whose validation failed, which the retry test retries
/** Plans outlive a run of this file: each run's chart versions, and so its plans, are its own. */
const RUN = Date.now() % 1_000_000;
const chartVersion = (): string => `1.${version}.${RUN}`;

/** A plan of its own for each rollout (the chart version differs), recording `recipe`. */
async function rollTo(recipe: string): Promise<{ plan: string; name: string }> {
  version += 1;
  await pushChart('alpha', chartVersion());
  const releases: Release[] = [chartRelease('alpha', 0, chartVersion())];
  const { name: plan } = await storePlan(runtimeUID, releases, recipe);
  await target(plan);
  const r = await awaitingRollout(plan);
  await approve(r.metadata.name);
  return { plan, name: r.metadata.name };
}

async function ended(name: string, timeoutMs = 90_000): Promise<RolloutObject> {
  const done = (r: RolloutObject): RolloutObject | undefined => (r.status?.outcome ? r : undefined);
  return waitFor(`rollout ${name} ended`, async () => done(await rollout(name)), timeoutMs);
}

async function reportOf(r: RolloutObject): Promise<ReturnType<typeof parseReport>> {
  const cm = await stepKube('rollout').get(KIND.configMap, r.status?.validation?.report ?? '', NAMESPACES.validation);
  return parseReport(Object.values(cm?.data ?? {}).find((v) => v.trimStart().startsWith('{')));
}

/** A rollout that succeeded with its validation passed, two checks, named in its status. */
function assertPassed(r: RolloutObject): void {
  assert.equal(r.status?.outcome, 'Succeeded', JSON.stringify(r.status?.conditions));
  const v = r.status?.validation;
  assert.equal(v?.state, 'Passed');
  assert.match(v?.job ?? '', /^aicr-validation-[0-9a-f]{16}-1$/);
  assert.ok(v?.runID, 'the run AICR gave its validator Jobs');
  assert.equal(v?.evidence, '', 'v0.11.1 pushes no evidence');
  assert.deepEqual(v?.checks, [
    { name: 'operator-health', status: 'passed' },
    { name: 'expected-resources', status: 'passed' },
  ]);
}

before(async () => {
  await clearRolloutStage({ configuration: await pinnedConfiguration() });
  await kubectl('delete', 'jobs,configmaps', '-n', NAMESPACES.validation, '-l', LABEL.stage, '--ignore-not-found');
  await kubectlApply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PERSON_NS } },
    {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'aicr-deployment-person',
        namespace: PERSON_NS,
        labels: {
          'aicr.nvidia.com/job-type': 'validation',
          'aicr.nvidia.com/run-id': 'person-run',
          'app.kubernetes.io/name': 'aicr',
        },
      },
      spec: {
        suspend: true,
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'validator', image: DEPLOYMENT_VALIDATOR_IMAGE }] },
        },
      },
    },
  );
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: TABLE });
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
    })
  ).metadata.uid;
  await waitFor(
    'a snapshot from discovery',
    async () => {
      const rt = await getRuntime();
      return rt ? discoveryOf(rt).snapshot?.configMap : undefined;
    },
    90_000,
  );
});

after(async () => {
  if (process.env['DEBUG_VALIDATION'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  await stopAndClear(cp);
  await kubectl('delete', 'namespace', PERSON_NS, '--ignore-not-found', '--wait=false');
  await applyConfiguration();
});

test('VAL-2 a run whose checks pass ends the rollout Succeeded: the real aicr validate runs the real deployment validator, whose expected-resources check runs chainsaw against the GPU operator the cluster holds; status.validation names the Job, the run and the CTRF report', async () => {
  await runGpuOperator();
  const recipe = await validationRecipe({
    checks: ['operator-health', 'expected-resources'],
    asserts: { 'gpu-operator': deploymentAssert(GPU_OPERATOR.name, GPU_OPERATOR.namespace) },
  });
  const { plan, name } = await rollTo(recipe);
  await released(
    'Validating while the run is under way',
    (reason, message) => reason === 'Validating' && message.includes(name),
    30_000,
  );
  const r = await ended(name);
  assertPassed(r);
  const report = await reportOf(r);
  assert.ok(report.ok, report.ok ? '' : report.problem);
  assert.equal(report.output.passed, 2);
  assert.deepEqual([...new Set(report.output.checks.map((c) => c.phase))], ['deployment']);
  assert.match(
    r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '',
    /succeeded: .*; deployment validation passed \(2 of 2 checks\)/,
  );
  await released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan));
  const shown = await kubectlAicr(['describe', name]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /Validation: Passed/);
  assert.match(shown.stdout, /Evidence: none: AICR v0\.11\.1 cannot push validation evidence/);
});

test("VAL-5 only the deployment phase runs, in aicr-validation, under the control plane's own labels; a person's run in another namespace is left alone", async () => {
  const done = (await rolloutsOf(runtimeUID)).filter((r) => r.status?.validation?.job).at(-1);
  assert.ok(done, 'a validated rollout');
  const job = JSON.parse(
    await kubectl('get', 'job', done.status?.validation?.job ?? '', '-n', NAMESPACES.validation, '-o', 'json'),
  ) as {
    metadata: { labels?: Record<string, string> };
    spec: { template: { spec: { containers: { args: string[] }[] } } };
  };
  assert.equal(job.metadata.labels?.[LABEL.stage], 'validation');
  assert.equal(job.metadata.labels?.[LABEL.managedBy], 'aicr-operator');
  const args = job.spec.template.spec.containers[0]?.args ?? [];
  assert.deepEqual(args.slice(0, 5), ['validate', '--phase', 'deployment', '-n', NAMESPACES.validation]);
  assert.equal(args.filter((a) => a === '--phase').length, 1, 'one phase only');
  const person = await kubectl('get', 'job', 'aicr-deployment-person', '-n', PERSON_NS, '-o', 'name');
  assert.equal(person.trim(), 'job.batch/aicr-deployment-person', "the person's run is still there");
  await settleAudit();
  const touched = auditSince(0).filter(
    (e) =>
      e.objectRef?.namespace === PERSON_NS &&
      e.user.username.startsWith('system:serviceaccount:aicr-validation') &&
      e.verb !== 'get',
  );
  assert.deepEqual(
    touched.map((e) => `${e.verb} ${e.objectRef?.resource}`),
    [],
    "aicr validate wrote nothing in the person's namespace",
  );
});

test('VAL-2 a check that fails ends the rollout Failed, naming the check and what AICR said, read from the CTRF report in the cluster', async () => {
  await removeGpuOperator();
  const { name } = await rollTo(await validationRecipe({ checks: ['operator-health'] }));
  failedByValidation = name;
  const started = Date.now();
  const r = await ended(name);
  assert.equal(r.status?.outcome, 'Failed');
  assert.ok(Date.now() - started < 60_000, 'a failing check fails at once');
  const ready = r.status?.conditions?.find((c) => c.type === 'Ready');
  assert.equal(ready?.reason, 'RolloutFailed');
  assert.match(ready?.message ?? '', /deployment validation failed: operator-health \(failed\)/);
  assert.deepEqual(r.status?.validation?.checks, [{ name: 'operator-health', status: 'failed' }]);
  const report = await reportOf(r);
  assert.ok(report.ok && report.output.failed === 1, 'the CTRF report counts the failed check');
  await released(
    'RolloutFailed on the runtime',
    (reason, message) => reason === 'RolloutFailed' && message.includes('operator-health'),
  );
});

test('VAL-3 a retry is a new rollout and a new run: once the cause is fixed, the retried rollout validates again and succeeds', async () => {
  const failed = await rollout(failedByValidation);
  assert.equal(failed.status?.outcome, 'Failed');
  await runGpuOperator();
  const retried = await kubectlAicr(['retry', failed.metadata.name, '--timeout', '30s'], 'alice');
  assert.equal(retried.code, 0, retried.stderr);
  const fresh = await awaitingRollout(failed.spec.toPlan);
  assert.notEqual(fresh.metadata.name, failed.metadata.name, 'a new rollout');
  await approve(fresh.metadata.name);
  const r = await ended(fresh.metadata.name);
  assert.equal(r.status?.outcome, 'Succeeded', JSON.stringify(r.status?.conditions));
  assert.notEqual(r.status?.validation?.job, failed.status?.validation?.job, 'a new run');
});

test('VAL-3 validation runs against the recipe the plan records: a component an override turned off is not required', async () => {
  await runGpuOperator();
  const asserts = {
    'gpu-operator': deploymentAssert(GPU_OPERATOR.name, GPU_OPERATOR.namespace),
    nvsentinel: deploymentAssert('nvsentinel', 'nvsentinel', '5s'),
  };
  const recipe = await validationRecipe({ checks: ['expected-resources'], asserts, disabled: ['nvsentinel'] });
  assert.doesNotMatch(recipe, /name: nvsentinel/, 'the bundle records the recipe without the component turned off');
  const { name } = await rollTo(recipe);
  const r = await ended(name);
  assert.equal(r.status?.outcome, 'Succeeded', JSON.stringify(r.status?.conditions));
  assert.equal(r.status?.validation?.state, 'Passed');
});

test('VAL-2 a run that breaks without a report is an internal failure, run once more: a second run that reports decides, a second break fails the rollout (AICR forced to exit 8 by a test knob)', async () => {
  await runGpuOperator();
  const broken =
    'time=… level=ERROR msg="[cli] command failed: error=[INTERNAL] validation failed: informer sync timed out (test knob)"\n';
  await withKnob(forceAicrExit('validate', 8, broken), async () => {
    const { name } = await rollTo(await validationRecipe({ checks: ['operator-health'] }));
    const r = await ended(name);
    assert.equal(r.status?.outcome, 'Succeeded', JSON.stringify(r.status?.conditions));
    assert.match(r.status?.validation?.job ?? '', /-2$/, 'the second run');
  });
  await withKnob(forceAicrExit('validate', 8, broken, { times: 2 }), async () => {
    const { name } = await rollTo(await validationRecipe({ checks: ['operator-health'] }));
    const r = await ended(name);
    assert.equal(r.status?.outcome, 'Failed');
    assert.match(
      r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '',
      /deployment validation could not run: aicr validation failed 2 times .*informer sync timed out/,
    );
  });
});

test('VAL-2 a readiness constraint the cluster does not meet is refused: the rollout fails naming the constraint, and the run is not repeated', async () => {
  const recipe = await validationRecipe({
    checks: ['operator-health'],
    constraints: { 'K8s.server.version': '>= 1.99.0' },
  });
  const { name } = await rollTo(recipe);
  const r = await ended(name);
  assert.equal(r.status?.outcome, 'Failed');
  const message = r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
  assert.match(message, /deployment validation was refused/);
  assert.match(message, /readiness check failed: K8s\.server\.version expected >= 1\.99\.0/);
  const jobs = await kubectl(
    'get',
    'jobs',
    '-n',
    NAMESPACES.validation,
    '-l',
    `${LABEL.stage}=validation`,
    '-o',
    'name',
  );
  assert.equal(
    jobs.split('\n').filter((j) => j.includes(r.status?.validation?.job?.replace(/-1$/, '') ?? '-')).length,
    1,
    'one run',
  );
});

test('VAL-4 a validator image not pinned at the tag AICR names fails the run before it starts, naming the image', async () => {
  await applyConfiguration(
    await pinnedConfiguration({
      'ghcr.io/nvidia/aicr-validators/deployment:v0.11.0': `ghcr.io/nvidia/aicr-validators/deployment@sha256:${'0'.repeat(64)}`,
    }),
  );
  try {
    const { name } = await rollTo(await validationRecipe({ checks: ['operator-health'] }));
    const r = await ended(name);
    assert.equal(r.status?.outcome, 'Failed');
    assert.match(
      r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '',
      /validator image ghcr\.io\/nvidia\/aicr-validators\/deployment:v0\.11\.1 is not pinned in aicr\.validatorImages/,
    );
    assert.equal(r.status?.validation?.job, undefined, 'no run started');
  } finally {
    await applyConfiguration(await pinnedConfiguration());
  }
});

test('VAL-4 a validator running another digest than its pin fails the run, its validator Jobs deleted, naming the image', async () => {
  await runGpuOperator();
  await applyConfiguration(
    await pinnedConfiguration({
      [DEPLOYMENT_VALIDATOR_IMAGE]: `ghcr.io/nvidia/aicr-validators/deployment@sha256:${'0'.repeat(64)}`,
    }),
  );
  try {
    const asserts = { 'gpu-operator': deploymentAssert(GPU_OPERATOR.name, GPU_OPERATOR.namespace) };
    const { name } = await rollTo(await validationRecipe({ checks: ['expected-resources'], asserts }));
    const r = await ended(name);
    assert.equal(r.status?.outcome, 'Failed');
    const message = r.status?.conditions?.find((c) => c.type === 'Ready')?.message ?? '';
    assert.match(
      message,
      /validator image ghcr\.io\/nvidia\/aicr-validators\/deployment:v0\.11\.1 runs sha256:[0-9a-f]{64} in Pod .*, not sha256:0{64}/,
    );
    assert.match(message, /its validator Jobs were deleted \(aicr-/);
  } finally {
    await applyConfiguration(await pinnedConfiguration());
  }
});

test('VAL-1 without validation installed the runtime stalls with ValidationUnavailable before any step; installed but unable to run, the rollout waits in validation with the cause', async () => {
  await runGpuOperator();
  await applyConfiguration(await pinnedConfiguration({}));
  const mark = auditMark();
  const recipe = await validationRecipe({ checks: ['operator-health'] });
  version += 1;
  await pushChart('alpha', chartVersion());
  const { name: plan } = await storePlan(runtimeUID, [chartRelease('alpha', 0, chartVersion())], recipe);
  await target(plan);
  const r = await awaitingRollout(plan);
  await approve(r.metadata.name);
  const stalled = await released('ValidationUnavailable', (reason) => reason === 'ValidationUnavailable');
  assert.match(
    stalled.message,
    /deployment validation is not installed: validator images pinned in aicr\.validatorImages missing/,
  );
  await settleAudit();
  assert.deepEqual(
    auditSince(mark).filter(
      (e) =>
        e.objectRef?.resource === 'applications' &&
        ['create', 'patch', 'update'].includes(e.verb) &&
        e.impersonatedUser?.username === 'aicr-step-rollout',
    ),
    [],
    'no step started',
  );
  const base = (await pinnedConfiguration()) as { aicr: Record<string, unknown> };
  await applyConfiguration({ ...base, aicr: { ...base.aicr, versions: {} } });
  const waiting = await released(
    'Validating cannot run now',
    (reason, message) => reason === 'ValidationUnavailable' && message.includes('every step is done'),
  );
  assert.match(waiting.message, /AICR v0\.11\.1 has no image in aicr\.versions/);
  await applyConfiguration(await pinnedConfiguration());
  const done = await ended(r.metadata.name);
  assert.equal(done.status?.outcome, 'Succeeded', JSON.stringify(done.status?.conditions));
});

test('spec.validation.deployment: Disabled skips validation for the rollout, visibly in kubectl aicr describe', async () => {
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { validation: { deployment: 'Disabled' } } }),
  );
  try {
    const { name } = await rollTo(await validationRecipe({ checks: ['operator-health'] }));
    const r = await ended(name);
    assert.equal(r.status?.outcome, 'Succeeded');
    assert.equal(r.status?.validation?.state, 'Disabled');
    const shown = await kubectlAicr(['describe', name]);
    assert.match(shown.stdout, /Validation: Disabled \(spec\.validation\.deployment: Disabled\): skipped/);
  } finally {
    await kubectl(
      'patch',
      'clusterruntime',
      'cluster',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { validation: { deployment: 'Required' } } }),
    );
  }
});

test("aicr validate's identity binds cluster-admin only to AICR's validator ServiceAccount, and creates no other namespace (the chart's admission policy)", async () => {
  const as = '--as=system:serviceaccount:aicr-validation:aicr-validate';
  await assert.rejects(
    kubectl(
      'create',
      'clusterrolebinding',
      'test-escalation',
      '--clusterrole=cluster-admin',
      '--serviceaccount=default:default',
      as,
    ),
    /aicr-validate may create only/,
  );
  await assert.rejects(
    kubectl(
      'create',
      'clusterrolebinding',
      'aicr-validator-other',
      '--clusterrole=cluster-admin',
      '--serviceaccount=aicr-validation:aicr-validator',
      as,
    ),
    /aicr-validate may create only|forbidden/,
  );
  await assert.rejects(
    kubectl(
      'create',
      'clusterrolebinding',
      'aicr-validator',
      '--clusterrole=view',
      '--serviceaccount=aicr-validation:aicr-validator',
      as,
    ),
    /forbidden/i,
  );
  await assert.rejects(kubectl('create', 'namespace', 'test-not-validation', as), /aicr-validate may create only/);
  await assert.rejects(
    kubectl('create', 'serviceaccount', 'someone', '-n', NAMESPACES.validation, as),
    /aicr-validate may create only/,
  );
});

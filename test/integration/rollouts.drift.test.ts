// Changes to the owned Applications while a rollout runs, and the emergency stop, on the test
// cluster with Argo CD's own application controller: Applications changed after approval hold the
// rollout with InventoryDrift (undo resumes it, a retry replaces it); a hand edit of the release
// in flight is never written back; spec.suspendEngine turns automated sync off and back on, a
// refusal by an admission policy is reported and retried. The API server's audit log proves
// which Application writes the control plane made. Only the rollout step runs (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { fieldAt } from '../../shared/kube/fieldPath.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { auditMark } from '../../harness/audit.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  assertNoApplicationWrite,
  awaitingRollout,
  clearRolloutStage,
  released,
  rollout,
  rolloutsOf,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let round = 0;
/** The plan of the rollout the emergency stop holds. */
let heldPlan = '';

/** Three releases; `n` varies alpha's values so each call is a new plan. */
const releases = (n: number, version = '1.0.0'): Release[] => [
  chartRelease('alpha', 0, version, { values: { round: n } }),
  chartRelease('bravo', 1, version),
  chartRelease('charlie', 2, version),
];

async function rollTo(rs: Release[]): Promise<{ plan: string; rollout: string }> {
  const { name } = await storePlan(runtimeUID, rs);
  await target(name);
  const r = await awaitingRollout(name);
  await approve(r.metadata.name);
  return { plan: name, rollout: r.metadata.name };
}

const activeIs = (plan: string) =>
  released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan), 60_000);
const drifted = (what: RegExp) =>
  released(
    `InventoryDrift ${what.source}`,
    (reason, message) => reason === 'InventoryDrift' && what.test(message),
    30_000,
  );
const app = (name: string) => stepKube('rollout').get(KIND.application, name, NAMESPACES.argocd);
const patchApp = (name: string, patch: unknown) =>
  kubectl('patch', 'application', name, '-n', NAMESPACES.argocd, '--type', 'merge', '-p', JSON.stringify(patch));
const setValues = (name: string, values: Record<string, unknown>) =>
  patchApp(name, { spec: { source: { helm: { valuesObject: values } } } });
const spec = (patch: Record<string, unknown>) =>
  kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', JSON.stringify({ spec: patch }));
const engine = async () => condition(await getRuntime(), CONDITION.engineAvailable);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A rollout to a fresh plan with alpha's step in flight, held there while its Pods do not start (Argo CD reports it Progressing). */
async function alphaInFlight(
  body: (r: { plan: string; rollout: string }) => Promise<void>,
): Promise<{ plan: string; rollout: string }> {
  round += 1;
  let moved = { plan: '', rollout: '' };
  await withKnob(holdReleasePods(['ns-alpha']), async () => {
    moved = await rollTo(releases(round, round % 2 === 0 ? '1.0.0' : '1.1.0'));
    await released(
      'alpha in flight',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('alpha'),
    );
    await body(moved);
  });
  return moved;
}

before(async () => {
  await clearRolloutStage();
  for (const name of ['alpha', 'bravo', 'charlie'])
    for (const version of ['1.0.0', '1.1.0']) await pushChart(name, version);
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '60s',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  await activeIs((await rollTo(releases(0))).plan);
});

after(async () => {
  if (process.env['DEBUG_ROLLOUTS'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  await stopAndClear(cp);
  await kubectl(
    'delete',
    'validatingadmissionpolicybinding,validatingadmissionpolicy',
    'test-deny-suspension',
    '--ignore-not-found',
  );
});

test('ROL-2 Applications edited and moved to another plan after approval hold the rollout with InventoryDrift listing each change; nothing is written while they differ; undoing resumes it', async () => {
  const planOfBravo = (await app('bravo'))?.metadata.annotations?.[ANNOTATION.planDigest] ?? '';
  let mark = 0;
  const { plan } = await alphaInFlight(async () => {
    await setValues('charlie', { edited: true });
    await patchApp('bravo', {
      metadata: {
        annotations: {
          [ANNOTATION.planDigest]: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
        },
      },
    });
    const c = await drifted(/Application bravo is at plan aicr-plan-0000000000000000.*Application charlie was edited/);
    assert.match(c.message, /kubectl aicr retry/);
    mark = auditMark();
  });
  // alpha is now Healthy, so without the drift the next step would be written.
  await waitFor(
    'Argo CD reports alpha synced',
    async () => (fieldAt(await app('alpha'), 'status.sync.status') === 'Synced' ? true : undefined),
    20_000,
  );
  await sleep(3_000);
  assert.equal(
    condition(await getRuntime(), 'Released')?.reason,
    'InventoryDrift',
    'the check repeats and still finds the change',
  );
  await assertNoApplicationWrite(mark);
  await kubectl(
    'patch',
    'application',
    'charlie',
    '-n',
    NAMESPACES.argocd,
    '--type',
    'json',
    '-p',
    JSON.stringify([{ op: 'remove', path: '/spec/source/helm/valuesObject' }]),
  );
  await patchApp('bravo', { metadata: { annotations: { [ANNOTATION.planDigest]: planOfBravo } } });
  await activeIs(plan);
});

test('ROL-2 a deleted Application is drift; kubectl aicr retry ends the rollout Superseded and creates a new one from the current state that needs a fresh approval', async () => {
  let old = '';
  let mark = 0;
  const { plan } = await alphaInFlight(async ({ rollout: name }) => {
    old = name;
    await kubectl('delete', 'application', 'charlie', '-n', NAMESPACES.argocd, '--wait=false');
    await drifted(/Application charlie disappeared/);
    mark = auditMark();
    const retried = await kubectlAicr(['retry', name, '--timeout', '30s'], 'alice');
    assert.equal(retried.code, 0, retried.stderr);
    assert.match(retried.stdout, /which ends it Superseded/);
  });
  assert.equal((await rollout(old)).status?.outcome, 'Superseded');
  const fresh = await awaitingRollout(plan);
  assert.notEqual(fresh.metadata.name, old);
  assert.equal(
    fresh.spec.applications?.some((e) => e.name === 'charlie'),
    false,
    'the new rollout starts from the current state',
  );
  assert.equal(fresh.spec.steps.find((s) => s.release === 'charlie')?.action, 'Install');
  await assertNoApplicationWrite(mark);
  await approve(fresh.metadata.name);
  await activeIs(plan);
});

test('ROL-3 a hand edit of the release in flight is not written back: the step is SpecDrifted until undone, then goes on', async () => {
  let mark = 0;
  const { plan, rollout: name } = await alphaInFlight(async ({ rollout: r }) => {
    mark = auditMark();
    await setValues('alpha', { round: 'by hand' });
    await waitFor(
      'SpecDrifted',
      async () => ((await rollout(r)).status?.steps?.[0]?.reason === 'SpecDrifted' ? true : undefined),
      20_000,
    );
    await sleep(2_000);
    await assertNoApplicationWrite(mark);
    assert.deepEqual(
      fieldAt(await app('alpha'), 'spec.source.helm.valuesObject'),
      { round: 'by hand' },
      'the edit stays',
    );
    await setValues('alpha', { round });
    await waitFor(
      'no longer SpecDrifted',
      async () => ((await rollout(r)).status?.steps?.[0]?.reason !== 'SpecDrifted' ? true : undefined),
      20_000,
    );
  });
  await activeIs(plan);
  assert.equal((await rollout(name)).status?.outcome, 'Succeeded');
});

test('ROL-3 a hand edit of the release in flight that is never undone fails the rollout at actionTimeout, still without writing it back', async () => {
  await spec({ actionTimeout: '10s' });
  let mark = 0;
  const { rollout: name } = await alphaInFlight(async () => {
    mark = auditMark();
    await setValues('alpha', { round: 'kept by hand' });
    const failed = await released('RolloutFailed at actionTimeout', (reason) => reason === 'RolloutFailed', 40_000);
    assert.match(
      failed.message,
      /step 1 \(Upgrade alpha\) did not finish within actionTimeout: Application alpha was edited since the step wrote it/,
    );
  });
  await assertNoApplicationWrite(mark);
  const r = await rollout(name);
  assert.equal(r.status?.outcome, 'Failed');
  assert.equal(r.status?.steps?.[0]?.reason, 'ActionTimeout');
  assert.deepEqual(
    fieldAt(await app('alpha'), 'spec.source.helm.valuesObject'),
    { round: 'kept by hand' },
    'the edit stays',
  );
  await spec({ actionTimeout: '60s' });
});

test('ROL-7 a step in flight while the engine is suspended for longer than actionTimeout is held, not failed, and fails once the stop ends', async () => {
  await spec({ actionTimeout: '10s' });
  const { rollout: name } = await alphaInFlight(async ({ rollout: r }) => {
    await spec({ suspendEngine: true });
    await released(
      'held while suspended',
      (reason, message) =>
        reason === 'RolloutProgressing' &&
        message.includes('Upgrade alpha') &&
        message.includes('spec.suspendEngine is true'),
    );
    // Past actionTimeout while suspended: only time can get there.
    await sleep(11_000);
    assert.equal((await rollout(r)).status?.outcome, undefined, 'not failed while suspended');
    assert.equal(condition(await getRuntime(), CONDITION.engineAvailable)?.reason, 'EngineSuspended');
    await spec({ suspendEngine: false });
    const failed = await released('RolloutFailed on resume', (reason) => reason === 'RolloutFailed', 30_000);
    assert.match(failed.message, /step 1 \(Upgrade alpha\) did not finish within actionTimeout/);
  });
  const r = await rollout(name);
  assert.equal(r.status?.outcome, 'Failed');
  assert.equal(r.status?.steps?.[0]?.reason, 'ActionTimeout');
  await spec({ actionTimeout: '60s' });
});

const NAMES = ['alpha', 'bravo', 'charlie'];

/**
 * An admission policy refusing any update that leaves Application bravo without automated sync
 * (`keep`), or, to refuse turning it back on, any that gives bravo automated sync (`withhold`).
 */
async function denyBravoSwitch(refuse: 'keep' | 'withhold'): Promise<void> {
  const expression =
    refuse === 'keep'
      ? "object.metadata.name != 'bravo' || has(object.spec.syncPolicy.automated)"
      : "object.metadata.name != 'bravo' || !has(object.spec.syncPolicy.automated)";
  const rules = [
    { apiGroups: ['argoproj.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['applications'] },
  ];
  await kubectlApply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'test-deny-suspension' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: rules },
      validations: [
        { expression, message: `bravo ${refuse === 'keep' ? 'keeps' : 'stays without'} automated sync (test policy)` },
      ],
    },
  });
  await kubectlApply({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'test-deny-suspension' },
    spec: { policyName: 'test-deny-suspension', validationActions: ['Deny'] },
  });
  // A policy is enforced a moment after it is written: probe with a server-side dry run until it refuses.
  const automated = refuse === 'keep' ? null : { prune: true };
  const probe = [
    'patch',
    'application',
    'bravo',
    '-n',
    NAMESPACES.argocd,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { syncPolicy: { automated } } }),
    '--dry-run=server',
  ];
  await waitFor(
    'the test policy to be enforced',
    () =>
      kubectl(...probe).then(
        () => undefined,
        (err: Error) => (err.message.includes('test-deny-suspension') ? true : undefined),
      ),
    15_000,
  );
}

const allowBravoSwitch = () =>
  kubectl('delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'test-deny-suspension');

async function automatedOf(names: readonly string[]): Promise<unknown[]> {
  return Promise.all(names.map(async (n) => fieldAt(await app(n), 'spec.syncPolicy.automated') ?? null));
}

const refusedEvents = () =>
  kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    'reason=EngineSuspensionRefused',
    '-o',
    'jsonpath={.items[*].message}',
  );
const noStepStarted = async (name: string) =>
  assert.equal(
    (await rollout(name)).status?.steps?.some((s) => s.startedAt !== undefined),
    false,
    'no step started',
  );

/** A rollout to a new plan approved while the suspension is refused: the approval is refused, and stays refused. */
async function approvalRefusedWhileSuspensionRefused(): Promise<string> {
  round += 1;
  const { name: plan } = await storePlan(runtimeUID, releases(round));
  heldPlan = plan;
  await target(plan);
  const {
    metadata: { name },
  } = await awaitingRollout(plan);
  // The plugin waits for the control plane's verdict and says why it refused.
  const refusal = await kubectlAicr(['approve', name], 'alice');
  assert.notEqual(refusal.code, 0);
  assert.match(
    refusal.stderr,
    /refused: no new rollout starts while the engine suspension is refused \(.*Application bravo/,
  );
  const r = await rollout(name);
  assert.equal(r.status?.approval?.state, 'Refused');
  assert.equal(r.status?.approval?.reason, 'EngineSuspensionRefused');
  assert.match(
    r.status?.approval?.message ?? '',
    /^approval by alice refused: no new rollout starts while the engine suspension is refused .*Application bravo/,
  );
  // The refusal is final for that approval (SEC-7): it stays as given, and a new one replaces it later.
  await noStepStarted(name);
  const kept = await rollout(name);
  assert.equal(kept.spec.approval?.approvedBy, 'alice', 'no identity of the control plane clears it');
  assert.equal(kept.status?.approval?.state, 'Refused');
  return name;
}

test('ENG-2 APR-2 spec.suspendEngine turns automated sync off on every owned Application; a refusal gives EngineSuspensionRefused and an Event naming the Application, retried until it succeeds; an approval meanwhile is refused saying why, and no rollout step starts', async () => {
  await denyBravoSwitch('keep');
  await spec({ suspendEngine: true });
  const refused = await waitFor(
    'EngineSuspensionRefused',
    async () => ((await engine())?.reason === 'EngineSuspensionRefused' ? engine() : undefined),
    30_000,
  );
  assert.match(
    refused?.message ?? '',
    /turn automated sync off for spec\.suspendEngine: during the emergency stop it keeps syncing: Application bravo/,
  );
  assert.match(await refusedEvents(), /turning automated sync off on Application argocd\/bravo/);
  assert.deepEqual(
    await automatedOf(NAMES),
    [null, { prune: true, selfHeal: true }, null],
    'the others are off, bravo is not',
  );
  // A new target while the stop is refused: its approval is refused, nothing moves.
  const planBefore = (await app('alpha'))?.metadata.annotations?.[ANNOTATION.planDigest];
  const name = await approvalRefusedWhileSuspensionRefused();
  // Once the switch succeeds, a fresh approval is accepted; the stop still holds the step.
  await allowBravoSwitch();
  await waitFor(
    'EngineSuspended',
    async () => ((await engine())?.reason === 'EngineSuspended' ? true : undefined),
    30_000,
  );
  assert.deepEqual(await automatedOf(NAMES), [null, null, null]);
  await approve(name);
  await released(
    'held while suspended',
    (reason, message) => reason === 'RolloutProgressing' && message.includes('spec.suspendEngine'),
  );
  assert.equal((await rollout(name)).status?.approval?.state, 'Accepted');
  await sleep(2_000);
  await noStepStarted(name);
  assert.equal((await app('alpha'))?.metadata.annotations?.[ANNOTATION.planDigest], planBefore, 'no release moved');
});

test("ENG-2 a refusal to turn automated sync back on gives EngineSuspensionRefused naming the Application, and the held rollout does not move; once it succeeds the plan's automated sync is back exactly and the rollout goes on", async () => {
  const name = (await rolloutsOf(runtimeUID)).find((r) => r.spec.toPlan === heldPlan)?.metadata.name ?? '';
  await denyBravoSwitch('withhold');
  await spec({ suspendEngine: false });
  const refused = await waitFor(
    'EngineSuspensionRefused',
    async () => ((await engine())?.reason === 'EngineSuspensionRefused' ? engine() : undefined),
    30_000,
  );
  assert.match(
    refused?.message ?? '',
    /turn automated sync back on after spec\.suspendEngine: it stays without automated sync: Application bravo/,
  );
  assert.match(await refusedEvents(), /turning automated sync on on Application argocd\/bravo/);
  await waitFor(
    'alpha and charlie back on',
    async () => ((await automatedOf(['alpha', 'charlie'])).every((a) => a !== null) ? true : undefined),
    15_000,
  );
  assert.equal((await automatedOf(['bravo']))[0], null, 'bravo stays off');
  await sleep(2_000);
  await noStepStarted(name);
  assert.notEqual((await app('alpha'))?.metadata.annotations?.[ANNOTATION.planDigest], heldPlan, 'no release moved');
  await allowBravoSwitch();
  await activeIs(heldPlan);
  assert.deepEqual(
    await automatedOf(NAMES),
    NAMES.map(() => ({ prune: true, selfHeal: true })),
  );
  for (const n of NAMES)
    assert.equal(
      (await app(n))?.metadata.annotations?.[ANNOTATION.engineSuspended],
      undefined,
      `${n} is no longer marked`,
    );
  assert.equal((await engine())?.reason, 'EngineReady');
});

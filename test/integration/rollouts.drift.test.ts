// Changes to the owned Applications while a rollout runs, and the emergency stop, on the test
// cluster with the labelled Argo CD stand-in: Applications changed after approval hold the
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
import { auditMark } from '../helpers/audit.ts';
import { startCapturedControlPlane, stepKube } from '../helpers/controlPlane.ts';
import { argoCdNeverSync, withKnob } from '../helpers/knobs.ts';
import { kubectlApply } from '../helpers/kubectlApply.ts';
import { kubectlAicr } from '../helpers/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../helpers/rolloutStage.ts';
import { approve, assertNoApplicationWrite, awaitingRollout, clearRolloutStage, released, rollout, stopAndClear } from '../helpers/rollouts.ts';
import { condition, createRuntime, getRuntime, kubectl, waitFor } from '../helpers/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let round = 0;
/** The plan of the rollout the emergency stop holds. */
let heldPlan = '';

/** Three releases; `n` varies alpha's values so each call is a new plan. */
const releases = (n: number, version = '1.0.0'): Release[] => [chartRelease('alpha', 0, version, { values: { round: n } }), chartRelease('bravo', 1, version), chartRelease('charlie', 2, version)];

async function rollTo(rs: Release[]): Promise<{ plan: string; rollout: string }> {
  const { name } = await storePlan(runtimeUID, rs);
  await target(name);
  const r = await awaitingRollout(name);
  await approve(r.metadata.name);
  return { plan: name, rollout: r.metadata.name };
}

const activeIs = (plan: string) => released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan), 60_000);
const drifted = (what: RegExp) => released(`InventoryDrift ${what.source}`, (reason, message) => reason === 'InventoryDrift' && what.test(message), 30_000);
const app = (name: string) => stepKube('rollout').get(KIND.application, name, NAMESPACES.argocd);
const patchApp = (name: string, patch: unknown) => kubectl('patch', 'application', name, '-n', NAMESPACES.argocd, '--type', 'merge', '-p', JSON.stringify(patch));
const setValues = (name: string, values: Record<string, unknown>) => patchApp(name, { spec: { source: { helm: { valuesObject: values } } } });
const spec = (patch: Record<string, unknown>) => kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', JSON.stringify({ spec: patch }));
const engine = async () => condition(await getRuntime(), CONDITION.engineAvailable);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A rollout to a fresh plan with alpha's step in flight and held there by the stand-in. */
async function alphaInFlight(body: (r: { plan: string; rollout: string }) => Promise<void>): Promise<{ plan: string; rollout: string }> {
  round += 1;
  let moved = { plan: '', rollout: '' };
  await withKnob(argoCdNeverSync(['alpha']), async () => {
    moved = await rollTo(releases(round, round % 2 === 0 ? '1.0.0' : '1.1.0'));
    await released('alpha in flight', (reason, message) => reason === 'RolloutProgressing' && message.includes('alpha'));
    await body(moved);
  });
  return moved;
}

before(async () => {
  await clearRolloutStage();
  for (const name of ['alpha', 'bravo', 'charlie']) for (const version of ['1.0.0', '1.1.0']) await pushChart(name, version);
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
  runtimeUID = (await createRuntime({ aicrVersion: 'v0.11.1', criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' }, actionTimeout: '60s', validation: { deployment: 'Disabled' } })).metadata.uid;
  await activeIs((await rollTo(releases(0))).plan);
});

after(async () => {
  if (process.env['DEBUG_ROLLOUTS']) for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  await stopAndClear(cp);
  await kubectl('delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'test-deny-suspension', '--ignore-not-found');
});

test('ROL-2 Applications edited and moved to another plan after approval hold the rollout with InventoryDrift listing each change; nothing is written while they differ; undoing resumes it', async () => {
  const planOfBravo = (await app('bravo'))?.metadata.annotations?.[ANNOTATION.planDigest] ?? '';
  let mark = 0;
  const { plan } = await alphaInFlight(async () => {
    await setValues('charlie', { edited: true });
    await patchApp('bravo', { metadata: { annotations: { [ANNOTATION.planDigest]: 'sha256:0000000000000000000000000000000000000000000000000000000000000000' } } });
    const c = await drifted(/Application bravo is at plan aicr-plan-0000000000000000.*Application charlie was edited/);
    assert.match(c.message, /kubectl aicr retry/);
    mark = auditMark();
  });
  // The stand-in now syncs alpha, so without the drift the next step would be written.
  await waitFor('Argo CD reports alpha synced', async () => (fieldAt(await app('alpha'), 'status.sync.status') === 'Synced' ? true : undefined), 20_000);
  await sleep(3_000);
  assert.equal(condition(await getRuntime(), 'Released')?.reason, 'InventoryDrift', 'the check repeats and still finds the change');
  await assertNoApplicationWrite(mark);
  await kubectl('patch', 'application', 'charlie', '-n', NAMESPACES.argocd, '--type', 'json', '-p', JSON.stringify([{ op: 'remove', path: '/spec/source/helm/valuesObject' }]));
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
  assert.equal(fresh.spec.applications?.some((e) => e.name === 'charlie'), false, 'the new rollout starts from the current state');
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
    await waitFor('SpecDrifted', async () => ((await rollout(r)).status?.steps?.[0]?.reason === 'SpecDrifted' ? true : undefined), 20_000);
    await sleep(2_000);
    await assertNoApplicationWrite(mark);
    assert.deepEqual(fieldAt(await app('alpha'), 'spec.source.helm.valuesObject'), { round: 'by hand' }, 'the edit stays');
    await setValues('alpha', { round });
    await waitFor('no longer SpecDrifted', async () => ((await rollout(r)).status?.steps?.[0]?.reason !== 'SpecDrifted' ? true : undefined), 20_000);
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
    assert.match(failed.message, /step 1 \(Upgrade alpha\) did not finish within actionTimeout: Application alpha was edited since the step wrote it/);
  });
  await assertNoApplicationWrite(mark);
  const r = await rollout(name);
  assert.equal(r.status?.outcome, 'Failed');
  assert.equal(r.status?.steps?.[0]?.reason, 'ActionTimeout');
  assert.deepEqual(fieldAt(await app('alpha'), 'spec.source.helm.valuesObject'), { round: 'kept by hand' }, 'the edit stays');
  await spec({ actionTimeout: '60s' });
});

const NAMES = ['alpha', 'bravo', 'charlie'];

/** An admission policy refusing any update that leaves Application bravo without automated sync. */
async function denyBravoSuspension(): Promise<void> {
  const expression = "object.metadata.name != 'bravo' || has(object.spec.syncPolicy.automated)";
  const rules = [{ apiGroups: ['argoproj.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['applications'] }];
  await kubectlApply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'test-deny-suspension' }, spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules }, validations: [{ expression, message: 'bravo keeps automated sync (test policy)' }] } });
  await kubectlApply({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'test-deny-suspension' }, spec: { policyName: 'test-deny-suspension', validationActions: ['Deny'] } });
  // A policy is enforced a moment after it is written: probe with a server-side dry run until it refuses.
  const probe = ['patch', 'application', 'bravo', '-n', NAMESPACES.argocd, '--type', 'merge', '-p', '{"spec":{"syncPolicy":{"automated":null}}}', '--dry-run=server'];
  await waitFor('the test policy to be enforced', () => kubectl(...probe).then(() => undefined, (err: Error) => (err.message.includes('test-deny-suspension') ? true : undefined)), 15_000);
}

async function automatedOf(names: readonly string[]): Promise<unknown[]> {
  return Promise.all(names.map(async (n) => fieldAt(await app(n), 'spec.syncPolicy.automated') ?? null));
}

test('ENG-2 spec.suspendEngine turns automated sync off on every owned Application; a refusal gives EngineSuspensionRefused and an Event naming the Application, retried until it succeeds; no rollout step starts meanwhile', async () => {
  await denyBravoSuspension();
  await spec({ suspendEngine: true });
  const refused = await waitFor('EngineSuspensionRefused', async () => ((await engine())?.reason === 'EngineSuspensionRefused' ? engine() : undefined), 30_000);
  assert.match(refused?.message ?? '', /Application bravo/);
  const events = await kubectl('get', 'events', '-n', NAMESPACES.events, '--field-selector', 'reason=EngineSuspensionRefused', '-o', 'jsonpath={.items[*].message}');
  assert.match(events, /Application argocd\/bravo/);
  assert.deepEqual(await automatedOf(['alpha', 'charlie']), [null, null], 'the others are off');
  // A new target while the stop is refused, then holds: no step starts, no release moves.
  const planBefore = (await app('alpha'))?.metadata.annotations?.[ANNOTATION.planDigest];
  round += 1;
  const { rollout: name, plan } = await rollTo(releases(round));
  heldPlan = plan;
  await kubectl('delete', 'validatingadmissionpolicybinding,validatingadmissionpolicy', 'test-deny-suspension');
  await waitFor('EngineSuspended', async () => ((await engine())?.reason === 'EngineSuspended' ? true : undefined), 30_000);
  assert.deepEqual(await automatedOf(NAMES), [null, null, null]);
  await released('held while suspended', (reason, message) => reason === 'RolloutProgressing' && message.includes('spec.suspendEngine'));
  await sleep(2_000);
  assert.equal((await rollout(name)).status?.steps?.some((s) => s.startedAt !== undefined), false, 'no step started');
  assert.equal((await app('alpha'))?.metadata.annotations?.[ANNOTATION.planDigest], planBefore, 'no release moved');
});

test('ENG-2 spec.suspendEngine back to false restores exactly the plan\'s automated sync, and the held rollout goes on', async () => {
  await spec({ suspendEngine: false });
  await activeIs(heldPlan);
  assert.deepEqual(await automatedOf(NAMES), NAMES.map(() => ({ prune: true, selfHeal: true })));
  for (const n of NAMES) assert.equal((await app(n))?.metadata.annotations?.[ANNOTATION.engineSuspended], undefined, `${n} is no longer marked`);
  assert.equal((await engine())?.reason, 'EngineReady');
});

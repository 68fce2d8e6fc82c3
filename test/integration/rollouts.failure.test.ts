// ROL-6 on the test cluster, with Argo CD's own application controller reporting on the Applications: a
// failed step leaves the releases already moved at the target plan and the runtime stalled;
// `kubectl aicr retry` replaces a failed or stalled rollout with a new one that needs approval;
// `kubectl aicr revoke` stops an approved rollout where it stands; and the active plan as the
// target again rolls back what a failed rollout moved or removed, after approval. The admission
// policy holds revocations and retries to the approvers, as themselves, once. Only the rollout
// step runs: each test settles resolution on the plan it wants (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, NAMESPACES } from '../../shared/api/constants.ts';
import { EVENT_REASON } from '../../shared/events/recorder.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { Release } from '../../shared/plans/release.ts';
import type { RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { forgeRolloutSpec } from '../helpers/forgedRollout.ts';
import { holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearApplications,
  clearRolloutStage,
  failingSoon,
  released,
  rollout,
  rolloutsOf,
  stalledOn,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, deleteRuntime, getRuntime, kubectl } from '../../harness/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';

const at = (version: string, extra: Partial<Release> = {}): Release[] =>
  ['alpha', 'bravo', 'charlie'].map((name, i) => chartRelease(name, i, version, extra));

/** Targets a plan of these releases and returns it with its rollout, which waits for approval. */
async function stage(releases: Release[]): Promise<{ plan: string; rollout: RolloutObject }> {
  const { name } = await storePlan(runtimeUID, releases);
  await target(name);
  return { plan: name, rollout: await awaitingRollout(name) };
}

const activeIs = (plan: string) =>
  released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan), 60_000);

function ourWrites(events: readonly AuditEvent[]): AuditEvent[] {
  return events.filter(
    (e) =>
      e.impersonatedUser?.username === 'aicr-step-rollout' &&
      e.objectRef?.resource === 'applications' &&
      ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
      (e.responseStatus?.code ?? 0) < 300,
  );
}

async function writtenSince(mark: number): Promise<string[]> {
  await settleAudit();
  return ourWrites(auditSince(mark)).map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`);
}

async function eventReasons(name: string): Promise<string> {
  return kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'jsonpath={.items[*].reason}',
  );
}

async function chartVersion(release: string): Promise<string | undefined> {
  const app = await stepKube('rollout').get(KIND.application, release, NAMESPACES.argocd);
  return app?.metadata.annotations?.[ANNOTATION.chartVersion];
}

/** Looks the rollout step takes on its own (it rechecks every second here). */
const someLooks = (): Promise<void> => new Promise((r) => setTimeout(r, 3_000));

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
  const first = await stage(at('1.0.0'));
  await approve(first.rollout.metadata.name);
  await activeIs(first.plan);
});

after(async () => {
  if (process.env['DEBUG_ROLLOUTS'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
});

let failed = '';
let planB = '';

test('ROL-6 a step that fails leaves the releases already moved at the target plan, records RolloutFailed and keeps the runtime stalled; nothing more is written', async () => {
  await failingSoon(() =>
    withKnob(holdReleasePods(['ns-bravo']), async () => {
      const staged = await stage(at('1.1.0'));
      planB = staged.plan;
      failed = staged.rollout.metadata.name;
      await approve(failed);
      const c = await released('RolloutFailed', (reason) => reason === 'RolloutFailed', 45_000);
      const mark = auditMark();
      assert.match(c.message, /step 2 \(Upgrade bravo\) did not finish within actionTimeout/);
      assert.match(
        c.message,
        new RegExp(`Releases it already moved stay at plan ${planB}.*kubectl aicr retry ${failed}`),
      );
      const r = await rollout(failed);
      assert.equal(r.status?.outcome, 'Failed');
      assert.deepEqual(
        r.status?.steps?.map((s) => s.state),
        ['Succeeded', 'Failed', 'Pending'],
      );
      assert.match(await eventReasons(failed), new RegExp(EVENT_REASON.rolloutFailed));
      await stalledOn('RolloutFailed');
      await someLooks();
      assert.deepEqual(await writtenSince(mark), [], 'nothing is written after the failure');
      assert.equal(await chartVersion('alpha'), '1.1.0', 'alpha stays at the target plan');
      assert.equal(await chartVersion('charlie'), '1.0.0', 'charlie was never moved');
      assert.equal(condition(await getRuntime(), 'Released')?.reason, 'RolloutFailed', 'still stalled');
      const shown = await kubectlAicr(['describe', failed]);
      assert.match(shown.stdout, /^Outcome: {3}Failed \(RolloutFailed\)$/m);
    }),
  );
});

test('ROL-6 kubectl aicr retry on the failed rollout creates a new one from the current state that waits for approval; approved, it succeeds', async () => {
  const mark = auditMark();
  const run = await kubectlAicr(['retry', failed, '--timeout', '30s'], 'alice');
  assert.equal(run.code, 0, run.stderr);
  const name = /new rollout (aicr-rollout-[0-9a-z-]+)/.exec(run.stdout)?.[1] ?? '';
  assert.match(
    run.stdout,
    new RegExp(
      `rollout ${failed} retried after it ended Failed: new rollout ${name} to ${planB}; approve it with kubectl aicr approve ${name}`,
    ),
  );
  const fresh = await awaitingRollout(planB);
  assert.equal(fresh.metadata.name, name);
  assert.deepEqual(
    fresh.spec.steps.map((s) => `${s.action} ${s.release}`),
    ['Upgrade bravo', 'Upgrade charlie'],
    'alpha is already at the target plan',
  );
  assert.equal((await rollout(failed)).status?.outcome, 'Failed', 'the failed rollout keeps its outcome');
  assert.deepEqual(await writtenSince(mark), [], 'nothing is written before the approval');
  const again = await kubectlAicr(['retry', failed], 'alice');
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, new RegExp(`retry refused: a retry of rollout ${failed} was already requested by alice`));
  await approve(name);
  await activeIs(planB);
});

test('ROL-6 pinning the active plan after a rollout that removed a release and then failed creates a rollout back, which reinstalls the release only after approval', async () => {
  await failingSoon(() =>
    withKnob(holdReleasePods(['ns-bravo']), async () => {
      const { rollout: r } = await stage([
        chartRelease('alpha', 0, '1.1.0'),
        chartRelease('bravo', 1, '1.1.0', { values: { rol6: 'away' } }),
      ]);
      assert.deepEqual(
        r.spec.steps.map((s) => `${s.action} ${s.release}`),
        ['Upgrade bravo', 'Remove charlie'],
      );
      // The removal first, so the step after it is the one that fails.
      await forgeRolloutSpec(r.metadata.name, { steps: [...r.spec.steps].reverse() });
      await approve(r.metadata.name);
      await released('RolloutFailed', (reason) => reason === 'RolloutFailed', 45_000);
      assert.equal(await chartVersion('charlie'), undefined, 'charlie was removed');
    }),
  );
  const mark = auditMark();
  await target(planB);
  const back = await awaitingRollout(planB);
  assert.equal(
    back.spec.fromPlan,
    (await rolloutsOf(runtimeUID)).find((x) => x.status?.outcome === 'Failed' && x.spec.toPlan !== planB)?.spec.toPlan,
  );
  assert.deepEqual(
    back.spec.steps.map((s) => `${s.action} ${s.release}`),
    ['Upgrade bravo', 'Install charlie'],
  );
  await someLooks();
  assert.deepEqual(await writtenSince(mark), [], 'nothing, charlie included, is written before the approval');
  await approve(back.metadata.name);
  await activeIs(planB);
  assert.equal(await chartVersion('charlie'), '1.1.0', 'charlie is back');
  const charlie = (await writtenSince(mark)).filter((w) => w.endsWith(' charlie'));
  assert.ok(charlie.length > 0, 'charlie was written after the approval');
});

test('ROL-6 kubectl aicr retry of a stalled rollout that has not ended ends it Superseded; a new rollout waits for approval', async () => {
  const { plan, rollout: r } = await stage(at('1.1.0', { values: { rol6: 'stalled' } }));
  // A step for a release the plan does not have, so the approved rollout stalls with StepUnknown.
  const ghost = { release: 'ghost', action: 'Install', verdict: 'unknown' };
  await forgeRolloutSpec(r.metadata.name, { steps: [ghost, ...r.spec.steps] });
  await approve(r.metadata.name);
  await released('StepUnknown', (reason) => reason === 'StepUnknown');
  const run = await kubectlAicr(['retry', r.metadata.name, '--timeout', '30s'], 'alice');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`rollout ${r.metadata.name} retried which ends it Superseded: new rollout `));
  const old = await rollout(r.metadata.name);
  assert.equal(old.status?.outcome, 'Superseded');
  assert.match(await eventReasons(r.metadata.name), new RegExp(EVENT_REASON.rolloutSuperseded));
  const fresh = await awaitingRollout(plan);
  assert.notEqual(fresh.metadata.name, r.metadata.name);
  assert.equal(fresh.spec.approval, undefined, 'it needs a fresh approval');
  assert.ok(!fresh.spec.steps.some((s) => s.release === 'ghost'));
  await approve(fresh.metadata.name);
  await activeIs(plan);
});

test('ROL-6 kubectl aicr revoke ends an approved rollout in progress Revoked with Event RolloutRevoked; nothing more is written and the runtime stays stalled', async () => {
  await withKnob(holdReleasePods(['ns-charlie']), async () => {
    const { rollout: r } = await stage(at('1.0.0', { values: { rol6: 'revoked' } }));
    const name = r.metadata.name;
    await approve(name);
    await released(
      'charlie in flight',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('Upgrade charlie'),
    );
    const run = await kubectlAicr(['revoke', name, '--reason', 'the maintenance window closed'], 'alice');
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(
        `rollout ${name} revoked: rollout ${name} .* was revoked by alice at \\S+: the maintenance window closed; nothing more is written and releases it already moved stay at plan`,
      ),
    );
    const mark = auditMark();
    const ended = await rollout(name);
    assert.equal(ended.status?.outcome, 'Revoked');
    assert.deepEqual(
      [ended.spec.revocation?.revokedBy, ended.spec.revocation?.reason],
      ['alice', 'the maintenance window closed'],
    );
    assert.match(await eventReasons(name), new RegExp(EVENT_REASON.rolloutRevoked));
    const c = await released('RolloutRevoked', (reason) => reason === 'RolloutRevoked');
    assert.match(c.message, /revoked by alice/);
    await stalledOn('RolloutRevoked');
    await someLooks();
    assert.deepEqual(await writtenSince(mark), [], 'nothing is written after the revocation');
    const shown = await kubectlAicr(['describe', name]);
    assert.match(shown.stdout, /^Outcome: {3}Revoked \(RolloutRevoked\)$/m);
    assert.match(shown.stdout, /^Revoked: {3}by alice at \S+: the maintenance window closed$/m);
  });
});

/** A merge patch of the rollout's spec as `user`; the API server's refusal, or '' when it accepted. */
async function patchAs(user: string, name: string, spec: Record<string, unknown>): Promise<string> {
  return kubectl('patch', 'runtimerollout', name, '--as', user, '--type', 'merge', '-p', JSON.stringify({ spec })).then(
    () => '',
    (err: Error) => err.message,
  );
}

test('ROL-6 admission holds revocations and retries to someone RBAC lets approve, as themselves, set once, and only on rollouts they fit; the plugin says why', async () => {
  const all = await rolloutsOf(runtimeUID);
  const revoked = all.find((r) => r.status?.outcome === 'Revoked')?.metadata.name ?? '';
  const succeeded = all.find((r) => r.status?.outcome === 'Succeeded')?.metadata.name ?? '';
  const now = '2026-12-01T00:00:00Z';
  assert.match(
    await patchAs('alice', revoked, { revocation: { revokedBy: 'alice', revokedAt: now, reason: 'changed my mind' } }),
    /spec\.revocation is set once: rollout .* was revoked by alice/,
  );
  assert.match(await patchAs('alice', revoked, { revocation: null }), /spec\.revocation is set once/);
  assert.match(
    await patchAs('alice', succeeded, { revocation: { revokedBy: 'alice', revokedAt: now } }),
    new RegExp(`spec\\.revocation: rollout ${succeeded} has ended Succeeded; there is nothing to revoke`),
  );
  assert.match(
    await patchAs('alice', succeeded, { retry: { requestedBy: 'alice', requestedAt: now } }),
    new RegExp(`spec\\.retry: rollout ${succeeded} ended Succeeded, which is not retried`),
  );
  assert.match(
    await patchAs('bob', revoked, { retry: { requestedBy: 'bob', requestedAt: now } }),
    /bob is not allowed to retry rollouts: RBAC grants no approve verb on runtimerollouts; bind ClusterRole aicr-rollout-approver/,
  );
  assert.match(
    await patchAs('alice', revoked, { retry: { requestedBy: 'bob', requestedAt: now } }),
    /spec\.retry\.requestedBy must be your own identity as the API server sees it \(alice\)/,
  );
  const plugin = await kubectlAicr(['revoke', succeeded], 'alice');
  assert.notEqual(plugin.code, 0);
  assert.match(
    plugin.stderr,
    new RegExp(`revocation refused: rollout ${succeeded} has ended Succeeded; there is nothing to revoke`),
  );
  const bob = await kubectlAicr(['retry', revoked], 'bob');
  assert.notEqual(bob.code, 0);
  assert.match(bob.stderr, /retry refused: bob is not allowed to retry rollouts/);
  assert.equal((await rollout(revoked)).spec.retry, undefined, 'nothing was recorded');
});

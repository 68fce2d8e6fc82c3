// Rollouts on the test cluster, from a real resolution by the real aicr: the first rollout and
// its assessment, approval through the real kubectl and the kubectl-aicr plugin as named users
// (alice may approve, bob may patch rollouts but not approve), acknowledgements held by the same
// admission policy, blocked transitions, a plan whose releases depend on each other in a cycle,
// and the deadline. Nothing is ever written to Argo CD, which the API server's audit log proves
// (COND-3): the runtime is paused, so even the approved rollout holds before its first step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { EVENT_REASON } from '../../shared/events/recorder.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { planToApplications } from '../../shared/plans/applications.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';
import type { RolloutObject } from '../../shared/rollout/rules/rolloutObject.ts';
import { auditMark } from '../../harness/audit.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import {
  assertNoApplicationWrite,
  clearApplications,
  grantUsers,
  released,
  rollout,
  rolloutsOf,
  select,
  writePlan,
  stalledOn,
} from '../../harness/rollouts.ts';
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

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const asResolve = stepKube('resolve');
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
let candidate = '';
let mark = 0;

async function targetPlan(): Promise<Plan> {
  const cm = await asResolve.get(KIND.configMap, candidate, NAMESPACES.system);
  assert.ok(cm);
  const read = readPlanConfigMap(cm);
  assert.ok(read.ok, read.ok ? '' : read.problem);
  return read.plan;
}

/** The active plan, read back as resolution wrote it. */
async function activePlan(): Promise<{ active: string; read: { plan: Plan } }> {
  const active = String((await getRuntime())?.status?.['activePlan' as never] ?? '');
  const cm = await asResolve.get(KIND.configMap, active, NAMESPACES.system);
  assert.ok(cm, `the active plan ${active} exists`);
  const read = readPlanConfigMap(cm);
  assert.ok(read.ok, read.ok ? '' : read.problem);
  return { active, read };
}

async function rollouts(): Promise<RolloutObject[]> {
  return rolloutsOf(runtimeUID);
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  await kubectl('delete', 'runtimerollouts', '--all');
  await kubectl('create', 'namespace', NAMESPACES.argocd).catch(() => undefined);
  await clearApplications();
  await grantUsers();
  mark = auditMark();
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  // Paused: approved rollouts here are held before their first step, so nothing reaches Argo CD
  // (rollouts.steps.test.ts has the ones that do).
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
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
  if (process.env['DEBUG_ROLLOUTS'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await applyConfiguration();
});

let first = '';

test('APR-1 TRN-1 COND-3 a new target plan creates a rollout that waits for approval: every release an Install assessed unknown (no upgrade-check in v0.11.1), nothing written to Argo CD', async () => {
  const c = await released('Released=False AwaitingApproval', (reason) => reason === 'AwaitingApproval', 60_000);
  const [r, ...more] = await rollouts();
  assert.ok(r, 'a rollout exists');
  assert.equal(more.length, 0);
  first = r.metadata.name;
  const plan = await targetPlan();
  assert.equal(r.spec.toPlan, candidate);
  assert.equal(r.spec.fromPlan, undefined);
  assert.deepEqual(
    r.spec.steps.map((s) => s.release),
    [...plan.releases].sort((a, b) => a.order - b.order).map((x) => x.name),
  );
  for (const s of r.spec.steps) assert.deepEqual([s.action, s.verdict], ['Install', 'unknown']);
  assert.match(r.spec.steps[0]?.why ?? '', /AICR v0\.11\.1 has no upgrade-check/);
  assert.match(c.message, new RegExp(`kubectl aicr approve ${first}`));
  assert.match(c.message, /Nothing has been written/);
  await stalledBecomes('True', 'AwaitingApproval');
  assert.deepEqual(
    [condition(r as never, 'Stalled')?.status, condition(r as never, 'Stalled')?.reason],
    ['True', 'AwaitingApproval'],
  );
  // The runbook's first look shows it in the Reason column.
  assert.match(await kubectl('get', 'clusterruntime', 'cluster'), /AwaitingApproval/);
  const events = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${first}`,
    '-o',
    'jsonpath={.items[*].reason}',
  );
  assert.match(events, new RegExp(EVENT_REASON.rolloutCreated));
  await assertNoApplicationWrite(mark);
});

test('APR-1 kubectl aicr describe shows the runtime and its rollout: message, every step with verdict, state and chart version, and why; -o json for scripts; a clear message for a rollout that does not exist', async () => {
  const human = await kubectlAicr(['describe']);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, new RegExp(`Rollout:\\s+${first}`));
  assert.match(human.stdout, /RELEASE\s+ACTION\s+VERDICT\s+STATE\s+STARTED\s+CHART VERSION/);
  assert.match(human.stdout, /Install\s+unknown\s+Pending\s+-\s+→ \S+/);
  assert.match(human.stdout, /no upgrade-check/);
  const one = await kubectlAicr(['describe', 'rollout', first, '-o', 'json']);
  assert.equal(one.code, 0, one.stderr);
  assert.equal((JSON.parse(one.stdout) as { metadata: { name: string } }).metadata.name, first);
  const missing = await kubectlAicr(['describe', 'aicr-rollout-nothere']);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /rollout aicr-rollout-nothere does not exist/);
});

test('APR-2 refused approvals say why: a user RBAC does not let approve, an approvedBy that is not the requester, a rollout that does not exist; nothing is recorded', async () => {
  const bob = await kubectlAicr(['approve', first], 'bob');
  assert.notEqual(bob.code, 0);
  assert.match(bob.stderr, /bob is not allowed to approve rollouts: RBAC grants no approve verb/);
  const forged = await kubectl(
    'patch',
    'runtimerollout',
    first,
    '--as',
    'alice',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { approval: { approvedBy: 'bob', approvedAt: '2026-01-01T00:00:00Z' } } }),
  ).then(
    () => '',
    (err: Error) => err.message,
  );
  assert.match(forged, /approvedBy must be your own identity as the API server sees it \(alice\)/);
  const edit = await kubectl(
    'patch',
    'runtimerollout',
    first,
    '--as',
    'alice',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { toPlan: 'aicr-plan-0000000000000000' } }),
  ).then(
    () => '',
    (err: Error) => err.message,
  );
  assert.match(edit, /only the control plane writes a rollout's spec/);
  const missing = await kubectlAicr(['approve', 'aicr-rollout-nothere'], 'alice');
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /does not exist/);
  assert.equal((await rollout(first)).spec.approval, undefined);
});

test('APR-1 COND-3 kubectl aicr approve as an approver records who and when and waits until the control plane accepts; approving twice is refused; still nothing written to Argo CD', async () => {
  const started = Date.now();
  const ok = await kubectlAicr(['approve', first], 'alice');
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`rollout ${first} approved: approved by alice at `));
  const r = await rollout(first);
  assert.equal(r.spec.approval?.approvedBy, 'alice');
  assert.ok(Math.abs(Date.parse(r.spec.approval?.approvedAt ?? '') - started) < 10_000);
  assert.deepEqual([r.status?.approval?.state, r.status?.approval?.approvedBy], ['Accepted', 'alice']);
  const held = await released(
    'Released=False RolloutProgressing, held by the pause',
    (reason, message) => reason === 'RolloutProgressing' && message.includes('paused'),
  );
  assert.match(held.message, new RegExp(`rollout ${first} .* holds at step 1 of `));
  const again = await kubectlAicr(['approve', first], 'alice');
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, new RegExp(`rollout ${first} is already approved by alice`));
  await assertNoApplicationWrite(mark);
});

/** A merge patch of spec.acknowledgements as `user`; the API server's refusal, or '' when it accepted. */
async function acknowledgeAs(
  user: string,
  name: string,
  acknowledgements: readonly Record<string, string>[],
): Promise<string> {
  return kubectl(
    'patch',
    'runtimerollout',
    name,
    '--as',
    user,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { acknowledgements } }),
  ).then(
    () => '',
    (err: Error) => err.message,
  );
}

test("APR-2 APR-3 admission holds acknowledgements like approvals: only someone RBAC lets approve, only as themselves, and only ever added; the plugin names every step's state when none awaits one", async () => {
  const release = (await rollout(first)).spec.steps[0]?.release ?? '';
  const ack = (by: string, at = '2026-11-30T12:00:00Z'): Record<string, string> => ({
    release,
    acknowledgedBy: by,
    acknowledgedAt: at,
  });
  assert.match(
    await acknowledgeAs('bob', first, [ack('bob')]),
    /bob is not allowed to acknowledge releases: RBAC grants no approve verb on runtimerollouts; bind ClusterRole aicr-rollout-approver/,
  );
  assert.match(
    await acknowledgeAs('alice', first, [ack('bob')]),
    /spec\.acknowledgements\[\]\.acknowledgedBy must be your own identity as the API server sees it \(alice\)/,
  );
  assert.equal(await acknowledgeAs('alice', first, [ack('alice')]), '');
  assert.match(
    await acknowledgeAs('alice', first, [ack('alice', '2026-11-30T12:05:00Z')]),
    /spec\.acknowledgements only grows/,
  );
  assert.match(await acknowledgeAs('alice', first, []), /spec\.acknowledgements only grows/);
  assert.deepEqual((await rollout(first)).spec.acknowledgements, [ack('alice')]);
  const none = await kubectlAicr(['acknowledge', first], 'alice');
  assert.notEqual(none.code, 0);
  assert.match(none.stderr, new RegExp(`no step of rollout ${first} awaits acknowledgement \\(steps: ${release} \\w+`));
});

let moved = '';

test('TRN-1 COND-3 a release that would change namespace blocks the move with TransitionBlocked naming it: no rollout is created; pinning the active plan clears it', async () => {
  const plan = await targetPlan();
  const shifted = await writePlan(plan, (r, i) => (i === 0 ? { ...r, namespace: `${r.namespace}-moved` } : r));
  moved = plan.releases.find((r) => r.order === 0)?.name ?? '';
  // The Applications of the shifted plan stand in Argo CD, as if it had been rolled out.
  await kubectlApply(...planToApplications(shifted.plan.releases, { runtimeUID, planDigest: shifted.plan.digest }));
  await select({ mode: 'Pinned', plan: shifted.name });
  await released(
    `Released=True on ${shifted.name}`,
    (reason, message) => reason === 'Released' && message.includes(shifted.name),
  );
  assert.equal((await getRuntime())?.status?.['activePlan' as never], shifted.name);
  assert.equal((await rollout(first)).status?.outcome, 'Superseded');
  const before = (await rollouts()).length;
  const since = auditMark();
  await select({ mode: 'Automatic', plan: null });
  const blocked = await released('Released=False TransitionBlocked', (reason) => reason === 'TransitionBlocked');
  assert.match(
    blocked.message,
    new RegExp(
      `${moved}: it would move from namespace \\S+ to \\S+-moved|${moved}: it would move from namespace \\S+-moved to \\S+`,
    ),
  );
  assert.match(blocked.message, /No rollout is created/);
  assert.equal((await rollouts()).length, before, 'no rollout was created');
  await stalledOn('TransitionBlocked');
  await assertNoApplicationWrite(since);
  await select({ mode: 'Pinned', plan: shifted.name });
  await released('Released=True again', (reason) => reason === 'Released');
});

test('TRN-1 a plan whose releases depend on each other in a cycle is blocked with a clear message, and nothing is created', async () => {
  const plan = await targetPlan();
  const [a, b] = [...plan.releases].sort((x, y) => x.order - y.order).map((r) => r.name);
  const cyclic = await writePlan(plan, (r) =>
    r.name === a ? { ...r, dependsOn: [b ?? ''] } : r.name === b ? { ...r, dependsOn: [a ?? ''] } : r,
  );
  const before = (await rollouts()).length;
  await select({ mode: 'Pinned', plan: cyclic.name });
  const c = await released(
    'Released=False TransitionBlocked for the cycle',
    (reason, message) => reason === 'TransitionBlocked' && message.includes('cycle'),
  );
  assert.match(c.message, new RegExp(`${a} → ${b} → ${a}|${b} → ${a} → ${b}`));
  assert.equal((await rollouts()).length, before);
});

test("APR-1 APR-2 an unapproved rollout ends Expired at its deadline with Event RolloutExpired (the step's deadline timer); approving it afterwards is refused as ended; describe shows the Helm values that change", async () => {
  const { active, read } = await activePlan();
  const second = [...read.plan.releases].sort((x, y) => x.order - y.order)[1]?.name ?? '';
  const next = await writePlan(read.plan, (r) =>
    r.name === second ? { ...r, values: { ...r.values, rolloutTest: { replicas: 2 } } } : r,
  );
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { approvalTimeout: '30s', selection: { mode: 'Pinned', plan: next.name } } }),
  );
  const waiting = await released(
    'Released=False AwaitingApproval for the upgrade',
    (reason, message) => reason === 'AwaitingApproval' && message.includes(next.name),
  );
  const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
  const r = await rollout(name);
  assert.equal(r.spec.fromPlan, active);
  assert.deepEqual(
    r.spec.steps.map((s) => [s.release, s.action, s.verdict, s.valuesChanged]),
    [[second, 'Upgrade', 'unknown', ['rolloutTest.replicas']]],
  );
  const shown = await kubectlAicr(['describe', name]);
  assert.match(
    shown.stdout,
    new RegExp(`${second}\\s+Upgrade\\s+unknown\\s+Pending\\s+-\\s+\\S+\\s+1 changed: rolloutTest.replicas`),
  );
  const deadline = Date.parse(r.spec.deadline ?? '');
  assert.ok(
    deadline - Date.parse(r.metadata.creationTimestamp ?? '') <= 31_000,
    'the deadline is creation plus approvalTimeout',
  );
  const expired = await released('Released=False RolloutExpired', (reason) => reason === 'RolloutExpired', 60_000);
  assert.ok(Date.now() >= deadline, 'not before its deadline');
  assert.match(
    expired.message,
    new RegExp(`rollout ${name} .* expired at .* without an approval; nothing was written`),
  );
  assert.equal((await rollout(name)).status?.outcome, 'Expired');
  const events = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'jsonpath={.items[*].reason}',
  );
  assert.match(events, new RegExp(EVENT_REASON.rolloutExpired));
  const late = await kubectlAicr(['approve', name], 'alice');
  assert.notEqual(late.code, 0);
  assert.match(late.stderr, new RegExp(`rollout ${name} has ended Expired; there is nothing to approve`));
  // Admission says the same to anyone who writes the approval directly.
  const direct = await kubectl(
    'patch',
    'runtimerollout',
    name,
    '--as',
    'alice',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { approval: { approvedBy: 'alice', approvedAt: new Date().toISOString() } } }),
  ).then(
    () => '',
    (err: Error) => err.message,
  );
  assert.match(direct, /has ended Expired; there is nothing to approve/);
  const ack = { release: second, acknowledgedBy: 'alice', acknowledgedAt: new Date().toISOString() };
  assert.match(
    await acknowledgeAs('alice', name, [ack]),
    new RegExp(`rollout ${name} has ended Expired; there is nothing to acknowledge`),
  );
  await assertNoApplicationWrite(mark);
});

test('APR-2 an approval after the owned Applications drifted since creation is refused with that reason; the rollout ends Superseded and a new one from the current state waits for a fresh approval', async () => {
  const { read } = await activePlan();
  const third = [...read.plan.releases].sort((x, y) => x.order - y.order)[2]?.name ?? '';
  const next = await writePlan(read.plan, (r) =>
    r.name === third ? { ...r, values: { ...r.values, driftTest: true } } : r,
  );
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { approvalTimeout: '1h', selection: { mode: 'Pinned', plan: next.name } } }),
  );
  const waiting = await released(
    'Released=False AwaitingApproval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes(next.name),
  );
  const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
  // Someone moves an owned Application to another plan after the rollout was created.
  await kubectl(
    'annotate',
    'applications.argoproj.io',
    moved,
    '-n',
    NAMESPACES.argocd,
    `${ANNOTATION.planDigest}=sha256:${'0'.repeat(64)}`,
    '--overwrite',
  );
  const refused = await kubectlAicr(['approve', name], 'alice');
  assert.notEqual(refused.code, 0);
  assert.match(
    refused.stderr,
    /approval by alice refused: the owned Argo CD Applications changed since rollout .* was created \(drift since creation\)/,
  );
  const old = await rollout(name);
  assert.deepEqual(
    [old.status?.outcome, old.status?.approval?.state, old.status?.approval?.reason],
    ['Superseded', 'Refused', 'InventoryDrift'],
  );
  const fresh = await waitFor('a new rollout', async () =>
    (await rollouts()).find((r) => r.spec.toPlan === next.name && !r.status?.outcome),
  );
  assert.notEqual(fresh.metadata.name, name);
  assert.equal(fresh.spec.approval, undefined);
  const events = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${name}`,
    '-o',
    'jsonpath={.items[*].reason}',
  );
  assert.match(events, new RegExp(EVENT_REASON.approvalRefused));
});

test('COND-3 a stalled resolution (an AICR version this control plane does not pin) creates no rollout and writes no Application', async () => {
  const since = auditMark();
  const before = (await rollouts()).length;
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { aicrVersion: 'v0.0.1', selection: { mode: 'Automatic', plan: null } } }),
  );
  await resolvedWith('Resolved=False AICRVersionMismatch', (c) => c.reason === 'AICRVersionMismatch', 30_000);
  await new Promise((r) => setTimeout(r, 2_000));
  assert.equal((await rollouts()).length, before, 'no rollout was created');
  await stalledOn('AICRVersionMismatch');
  await assertNoApplicationWrite(since);
});

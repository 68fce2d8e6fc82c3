// FLT-1, crashes and duplicated messages: rollouts driven by local mode's control plane in a
// child process that the fault harness (test/helpers/faults/crashingControlPlane.ts) kills with
// SIGKILL right after a chosen write to the API server, again and again, at seeded points from
// the target to the end; each process also handles a share of messages twice. After each crash a
// new process picks up from what the cluster holds. First an install of every release, then an
// upgrade that upgrades, removes and installs. Checked from the API server's audit log and the
// objects: no Application written before the approval; the releases first written in the
// rollout's order, each once the step before it ended; messages handled twice after the end
// write nothing; and each run ends where a run without faults ends (Released and Ready on the
// plan, one rollout to it, Succeeded, every Application at its version or gone). Last, an
// upgrade under the same crashes whose control plane also gets 409s and 429s from a busy API
// server, while kube-apiserver, Argo CD's application controller, repo-server and Redis, and the
// registry are restarted in turn (test/helpers/faults/restarts.ts) during the rollout.
// AICR_FAULT_SEED replays a seed; AICR_FAULT_RELEASES sizes the plan (3 by default; the long run
// uses 20); AICR_FAULT_STRIDE bounds the writes between crashes; AICR_FAULT_DUPLICATE the share
// of messages handled twice; AICR_FAULT_CONFLICTS and AICR_FAULT_THROTTLES the shares of requests
// answered 409 and 429 in the last test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../helpers/audit.ts';
import { CONTROL_PLANE_USER } from '../helpers/env.ts';
import { CRASH_LINE, DUPLICATE_LINE } from '../helpers/faults/lines.ts';
import { BUSY, CALM, type Busy, RELEASES, SEED, type Start, crashUntil, runProcess, seeded } from '../helpers/faults/processes.ts';
import { PARTS, type Part, restart } from '../helpers/faults/restarts.ts';
import { holdReleasePods } from '../helpers/knobs.ts';
import { chartRelease, pushChart, storePlan, target } from '../helpers/rolloutStage.ts';
import type { RolloutObject } from '../../shared/rollouts/objects.ts';
import { approve, clearApplications, clearRolloutStage, rollout, rolloutsOf } from '../helpers/rollouts.ts';
import { condition, createRuntime, deleteRuntime, getRuntime, kubectl } from '../helpers/runtime.ts';

const releasedWith = async (ok: (reason: string, status: string) => boolean): Promise<boolean> => {
  const c = condition(await getRuntime(), CONDITION.released);
  return c !== undefined && ok(c.reason, c.status);
};

const writesTo = (events: readonly AuditEvent[], resource: string): AuditEvent[] =>
  events.filter((e) => e.user.username === CONTROL_PLANE_USER && e.objectRef?.resource === resource && ['create', 'update', 'patch'].includes(e.verb) && (e.responseStatus?.code ?? 0) < 300);
const received = (e: AuditEvent): number => Date.parse((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp ?? '');
const completed = (e: AuditEvent): number => Date.parse((e as { stageTimestamp?: string }).stageTimestamp ?? '');

/** What the audit log says was written: nothing before the approval, the releases first written in the rollout's order (each once the step before it ended), nothing else. */
function assertHistory(events: readonly AuditEvent[], done: RolloutObject): void {
  const name = done.metadata.name;
  const approval = events.find((e) => e.impersonatedUser?.username === 'alice' && e.objectRef?.resource === 'runtimerollouts' && e.objectRef.name === name && e.verb === 'patch' && (e.responseStatus?.code ?? 0) < 300);
  assert.ok(approval, 'the approval is in the audit log');
  const appWrites = writesTo(events, 'applications');
  const early = appWrites.filter((e) => received(e) <= completed(approval));
  assert.deepEqual(early.map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`), [], 'no Application written before the approval was recorded');
  const firstWrites = [...new Set(appWrites.map((e) => e.objectRef?.name ?? ''))];
  const steps = done.spec.steps;
  // A removal may only delete; every other step writes its Application.
  const expected = steps.filter((st) => st.action !== 'Remove' || firstWrites.includes(st.release)).map((st) => st.release);
  assert.deepEqual(firstWrites, expected, 'each release first written in the rollout\'s order, and nothing else written');
  const states = done.status?.steps ?? [];
  for (let i = 1; i < steps.length; i++) {
    const first = appWrites.find((e) => e.objectRef?.name === steps[i]?.release);
    if (!first) continue;
    const ended = Date.parse(states[i - 1]?.finishedAt ?? '');
    assert.ok(Number.isFinite(ended) && received(first) >= ended, `${steps[i]?.release ?? ''} first written at ${new Date(received(first)).toISOString()}, after the step before ended at ${states[i - 1]?.finishedAt ?? 'never'}`);
  }
}

/** Where a run without faults ends: Released and Ready on the plan, its one rollout Succeeded, each Application synced and healthy at its version or gone. */
async function assertEndState(uid: string, plan: string, done: RolloutObject, versions: ReadonlyMap<string, string | 'gone'>): Promise<void> {
  const rt = await getRuntime();
  assert.equal((rt?.status as { activePlan?: string } | undefined)?.activePlan, plan);
  assert.equal(condition(rt, CONDITION.ready)?.status, 'True');
  assert.equal(done.status?.outcome, 'Succeeded');
  assert.deepEqual(done.status?.steps?.map((st) => st.state), done.spec.steps.map(() => 'Succeeded'));
  assert.deepEqual((await rolloutsOf(uid)).filter((r) => r.spec.toPlan === plan).map((r) => r.metadata.name), [done.metadata.name], 'one rollout to the plan, however often its creation was cut short');
  for (const [n, version] of versions) {
    const state = await kubectl('get', 'application', n, '-n', NAMESPACES.argocd, '--ignore-not-found', '-o', 'jsonpath={.spec.source.targetRevision} {.status.sync.status} {.status.health.status}');
    assert.equal(state, version === 'gone' ? '' : `${version} Synced Healthy`, `Application ${n}`);
  }
}

const activePlan = async (): Promise<string | undefined> => ((await getRuntime())?.status as { activePlan?: string } | undefined)?.activePlan;

/**
 * Targets `plan` and drives its rollout to Released under the faults: crashes from the target to
 * the approval prompt, the approval (whose verdict the crashing processes give), crashes until
 * Released and Ready on the plan, then a process that handles every message twice and must
 * write nothing. Returns the rollout as it ended.
 */
interface MoreFaults {
  readonly busy: Busy;
  /** Run beside the crashes once the approval's verdict is in; the rollout cannot end before it does. */
  readonly afterApproval: () => Promise<void>;
}

async function rolloutUnderFaults(uid: string, plan: string, rng: () => number, more?: MoreFaults): Promise<RolloutObject> {
  const starts: Start[] = [];
  const busy = more?.busy ?? CALM;
  await target(plan);
  const asked = async (): Promise<boolean> => {
    const c = condition(await getRuntime(), CONDITION.released);
    return c?.reason === 'AwaitingApproval' && c.message.includes(plan);
  };
  await crashUntil(`the rollout to ${plan} awaiting approval`, asked, rng, { starts, busy });
  const waiting = (await rolloutsOf(uid)).filter((r) => !r.status?.outcome);
  assert.equal(waiting.length, 1, `one rollout awaits approval, however often its creation was cut short: ${waiting.map((r) => r.metadata.name).join(', ')}`);
  const name = waiting[0]?.metadata.name ?? '';
  // The plugin waits for the control plane's verdict, which the crashing processes give.
  const approving = approve(name);
  // Ready too: a crash between a step's status write and the summary's must not lose the summary.
  const there = async (): Promise<boolean> => (await activePlan()) === plan && (await releasedWith((reason, status) => reason === 'Released' && status === 'True')) && condition(await getRuntime(), CONDITION.ready)?.status === 'True';
  const reaching = crashUntil(`Released and Ready on ${plan}`, there, rng, { starts, busy });
  await approving;
  const [reached, also] = await Promise.allSettled([reaching, more?.afterApproval()]);
  if (reached.status === 'rejected') throw reached.reason;
  if (also.status === 'rejected') throw also.reason;

  // The harness's own proof that the faults happened.
  const crashes = starts.filter((st) => st.crash);
  const duplicates = starts.reduce((n, st) => n + st.duplicates, 0);
  const refused = starts.reduce((n, st) => n + st.refused, 0);
  console.log(`seed ${SEED}, ${plan}: ${starts.length} starts, ${crashes.length} crashes, ${duplicates} messages handled twice, ${refused} requests answered 409 or 429; crashes after: ${crashes.map((st) => st.crash?.slice(CRASH_LINE.length + 1)).join('; ')}`);
  assert.ok(crashes.length >= RELEASES, `at least one crash per release (seed ${SEED}): ${crashes.length} of ${starts.length} starts`);
  if (busy !== CALM) assert.ok(refused > 0, 'the busy API server answered requests 409 or 429');

  // Then a process with no crash that handles every message twice: a duplicate only re-reads.
  await settleAudit();
  const quiet = auditMark();
  const twice = await runProcess(0, SEED, async (out) => out.split('\n').some((l) => l.startsWith(DUPLICATE_LINE)), { duplicate: '1', busy: CALM });
  assert.ok(twice.duplicates >= 1, 'messages were handled twice');
  await settleAudit();
  assert.deepEqual(writesTo(auditSince(quiet), 'applications').map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`), [], 'messages handled twice after the release wrote no Application');
  return rollout(name);
}

let uid = '';
const names = Array.from({ length: RELEASES }, (_, i) => `flt-${String(i).padStart(2, '0')}`);
const rng = seeded(SEED);

before(async () => {
  await clearRolloutStage();
});

after(async () => {
  if (process.env['KEEP']) return;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
});

test(`FLT-1 crashes and duplicates: a first install of ${RELEASES} releases whose control plane is killed (SIGKILL) right after seeded writes, over and over, and handles messages twice, writes no Application before approval, writes the releases in order, each after the one before it ended, and ends Released as a run without faults does`, async () => {
  for (const n of names) await pushChart(n, '1.0.0');
  uid = (await createRuntime({ aicrVersion: 'v0.11.1', criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' }, actionTimeout: '5m', validation: { deployment: 'Disabled' } })).metadata.uid;
  const { name: plan } = await storePlan(uid, names.map((n, i) => chartRelease(n, i, '1.0.0')));
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng);
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(names.map((n) => [n, '1.0.0'])));
});

test('FLT-1 crashes and duplicates: an upgrade of the same runtime that upgrades every release but the last, removes the last and installs a new one ends where a run without faults ends, with the same safety', async () => {
  assert.ok(uid, 'the runtime the install left');
  const kept = names.slice(0, -1);
  const removed = names.at(-1) ?? '';
  for (const n of kept) await pushChart(n, '1.1.0');
  await pushChart('flt-new', '1.0.0');
  const { name: plan } = await storePlan(uid, [...kept.map((n, i) => chartRelease(n, i, '1.1.0')), chartRelease('flt-new', kept.length, '1.0.0')]);
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng);
  assert.deepEqual(new Set(done.spec.steps.map((st) => `${st.action} ${st.release}`)), new Set([...kept.map((n) => `Upgrade ${n}`), `Remove ${removed}`, 'Install flt-new']));
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map([...kept.map((n): [string, string] => [n, '1.1.0']), [removed, 'gone'], ['flt-new', '1.0.0']]));
});

test('FLT-1 crashes, 409s and 429s, and restarts of kube-apiserver, Argo CD\'s application controller, repo-server and Redis, and the registry, in turn during an upgrade of every release: the same safety, and it ends where a run without faults ends', async () => {
  assert.ok(uid, 'the runtime the upgrade left');
  const releases = [...names.slice(0, -1), 'flt-new'];
  for (const n of releases) await pushChart(n, '1.2.0');
  const { name: plan } = await storePlan(uid, releases.map((n, i) => chartRelease(n, i, '1.2.0')));
  // The last release's new Pods wait until every part has been restarted, so each restart falls
  // inside the rollout: its step cannot end before.
  const last = releases.at(-1) ?? '';
  const hold = await holdReleasePods([`ns-${last}`]);
  const restarted: { part: Part; at: number }[] = [];
  const restarts = async (): Promise<void> => {
    try {
      for (const part of PARTS) {
        await new Promise((r) => setTimeout(r, 500 + Math.floor(rng() * 2_000)));
        await restart(part);
        restarted.push({ part, at: Date.now() });
      }
    } finally {
      await hold.undo();
    }
  };
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng, { busy: BUSY, afterApproval: restarts });
  console.log(`restarted in turn: ${restarted.map((r) => r.part).join(', ')}`);
  assert.deepEqual(restarted.map((r) => r.part), [...PARTS], 'every part was restarted');
  const lastEnded = done.status?.steps?.at(-1)?.finishedAt;
  assert.ok(restarted.every((r) => r.at <= Date.parse(lastEnded ?? '')), `every restart ended before the rollout's last step did (${lastEnded ?? 'never'})`);
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(releases.map((n): [string, string] => [n, '1.2.0'])));
});

// The fault suite's rollouts (FLT-1, test only): a rollout driven to Released by control-plane
// processes under the harness's faults, and the checks made after it from the API server's audit
// log and the objects.
import assert from 'node:assert/strict';
import { CONDITION, NAMESPACES } from '../../../shared/api/constants.ts';
import type { RolloutObject } from '../../../shared/rollout/rules/rolloutObject.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../../harness/audit.ts';
import { CONTROL_PLANE_USER } from '../../../harness/env.ts';
import { approve, rollout, rolloutsOf } from '../../../harness/rollouts.ts';
import { target } from '../../../harness/rolloutStage.ts';
import { condition, getRuntime, kubectl } from '../../../harness/runtime.ts';
import { CRASH_LINE, DUPLICATE_LINE } from './lines.ts';
import { type Busy, CALM, type Path, SEED, type Start, crashUntil, runProcess } from './processes.ts';

const releasedWith = async (ok: (reason: string, status: string) => boolean): Promise<boolean> => {
  const c = condition(await getRuntime(), CONDITION.released);
  return c !== undefined && ok(c.reason, c.status);
};

const writesTo = (events: readonly AuditEvent[], resource: string): AuditEvent[] =>
  events.filter(
    (e) =>
      e.user.username === CONTROL_PLANE_USER &&
      e.objectRef?.resource === resource &&
      ['create', 'update', 'patch'].includes(e.verb) &&
      (e.responseStatus?.code ?? 0) < 300,
  );
const received = (e: AuditEvent): number =>
  Date.parse((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp ?? '');
const completed = (e: AuditEvent): number => Date.parse((e as { stageTimestamp?: string }).stageTimestamp ?? '');

/** What the audit log says was written: nothing before the approval, the releases first written in the rollout's order (each once the step before it ended), nothing else. */
export function assertHistory(events: readonly AuditEvent[], done: RolloutObject): void {
  const name = done.metadata.name;
  const approval = events.find(
    (e) =>
      e.impersonatedUser?.username === 'alice' &&
      e.objectRef?.resource === 'runtimerollouts' &&
      e.objectRef.name === name &&
      e.verb === 'patch' &&
      (e.responseStatus?.code ?? 0) < 300,
  );
  assert.ok(approval, 'the approval is in the audit log');
  const appWrites = writesTo(events, 'applications');
  const early = appWrites.filter((e) => received(e) <= completed(approval));
  assert.deepEqual(
    early.map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`),
    [],
    'no Application written before the approval was recorded',
  );
  const firstWrites = [...new Set(appWrites.map((e) => e.objectRef?.name ?? ''))];
  const steps = done.spec.steps;
  // A removal may only delete; every other step writes its Application.
  const expected = steps
    .filter((st) => st.action !== 'Remove' || firstWrites.includes(st.release))
    .map((st) => st.release);
  assert.deepEqual(
    firstWrites,
    expected,
    "each release first written in the rollout's order, and nothing else written",
  );
  const states = done.status?.steps ?? [];
  for (let i = 1; i < steps.length; i++) {
    const first = appWrites.find((e) => e.objectRef?.name === steps[i]?.release);
    if (!first) continue;
    const ended = Date.parse(states[i - 1]?.finishedAt ?? '');
    assert.ok(
      Number.isFinite(ended) && received(first) >= ended,
      `${steps[i]?.release ?? ''} first written at ${new Date(received(first)).toISOString()}, after the step before ended at ${states[i - 1]?.finishedAt ?? 'never'}`,
    );
  }
}

/** Where a run without faults ends: Released and Ready on the plan, its one rollout Succeeded, each Application synced and healthy at its version or gone. */
export async function assertEndState(
  uid: string,
  plan: string,
  done: RolloutObject,
  versions: ReadonlyMap<string, string | 'gone'>,
): Promise<void> {
  const rt = await getRuntime();
  assert.equal((rt?.status as { activePlan?: string } | undefined)?.activePlan, plan);
  assert.equal(condition(rt, CONDITION.ready)?.status, 'True');
  assert.equal(done.status?.outcome, 'Succeeded');
  assert.deepEqual(
    done.status?.steps?.map((st) => st.state),
    done.spec.steps.map(() => 'Succeeded'),
  );
  assert.deepEqual(
    (await rolloutsOf(uid)).filter((r) => r.spec.toPlan === plan).map((r) => r.metadata.name),
    [done.metadata.name],
    'one rollout to the plan, however often its creation was cut short',
  );
  for (const [n, version] of versions) {
    const state = await kubectl(
      'get',
      'application',
      n,
      '-n',
      NAMESPACES.argocd,
      '--ignore-not-found',
      '-o',
      'jsonpath={.metadata.annotations.operator\\.aicr\\.run/chart-version} {.status.sync.status} {.status.health.status}',
    );
    assert.equal(state, version === 'gone' ? '' : `${version} Synced Healthy`, `Application ${n}`);
  }
}

const activePlan = async (): Promise<string | undefined> =>
  ((await getRuntime())?.status as { activePlan?: string } | undefined)?.activePlan;

interface MoreFaults {
  readonly busy?: Busy;
  /** Run beside the crashes once the approval's verdict is in; the rollout cannot end before it does. */
  readonly afterApproval?: () => Promise<void>;
  /** Each process killed right after its first write, so a crash follows every write in turn. */
  readonly everyWrite?: boolean;
  /** Local mode (the default) or the AWS path. */
  readonly path?: Path;
}

/** The harness's own proof that the faults happened. */
function assertFaultsHappened(starts: readonly Start[], plan: string, busy: Busy, steps: number): void {
  const crashes = starts.filter((st) => st.crash);
  const sum = (of: (st: Start) => number): number => starts.reduce((n, st) => n + of(st), 0);
  const [duplicates, refused, expired, heldBack] = [
    sum((st) => st.duplicates),
    sum((st) => st.refused),
    sum((st) => st.expired),
    sum((st) => st.heldBack),
  ];
  console.log(
    `seed ${SEED}, ${plan}: ${starts.length} starts, ${crashes.length} crashes, ${duplicates} messages handled twice, ${refused} requests answered 409 or 429, ${expired} watches ended 410, ${heldBack} messages held back; crashes after: ${crashes.map((st) => st.crash?.slice(CRASH_LINE.length + 1)).join('; ')}`,
  );
  assert.ok(
    crashes.length >= steps,
    `at least one crash per step of the rollout (seed ${SEED}): ${crashes.length} crashes in ${starts.length} starts for ${steps} steps`,
  );
  if (busy !== CALM) {
    assert.ok(refused > 0, 'the busy API server answered requests 409 or 429');
    assert.ok(expired > 0, 'watches were ended with 410 Gone');
    assert.ok(heldBack > 0, 'messages were held back behind later ones');
  }
}

/**
 * Targets `plan` and drives its rollout to Released under the faults: crashes from the target to
 * the approval prompt, the approval (whose verdict the crashing processes give), crashes until
 * Released and Ready on the plan, then a process that handles every message twice and must
 * write nothing. Returns the rollout as it ended.
 */
export async function rolloutUnderFaults(
  uid: string,
  plan: string,
  rng: () => number,
  more?: MoreFaults,
): Promise<RolloutObject> {
  const starts: Start[] = [];
  const { busy = CALM, everyWrite = false, path = 'local' } = more ?? {};
  await target(plan);
  const asked = async (): Promise<boolean> => {
    const c = condition(await getRuntime(), CONDITION.released);
    return c?.reason === 'AwaitingApproval' && c.message.includes(plan);
  };
  await crashUntil(`the rollout to ${plan} awaiting approval`, asked, rng, { starts, busy, everyWrite, path });
  const waiting = (await rolloutsOf(uid)).filter((r) => !r.status?.outcome);
  assert.equal(
    waiting.length,
    1,
    `one rollout awaits approval, however often its creation was cut short: ${waiting.map((r) => r.metadata.name).join(', ')}`,
  );
  const name = waiting[0]?.metadata.name ?? '';
  // The plugin waits for the control plane's verdict, which the crashing processes give.
  const approving = approve(name);
  // Ready too: a crash between a step's status write and the summary's must not lose the summary.
  const there = async (): Promise<boolean> =>
    (await activePlan()) === plan &&
    (await releasedWith((reason, status) => reason === 'Released' && status === 'True')) &&
    condition(await getRuntime(), CONDITION.ready)?.status === 'True';
  const reaching = crashUntil(`Released and Ready on ${plan}`, there, rng, { starts, busy, everyWrite, path });
  await approving;
  // A failure beside the crashes ends the run at once, not when the crashes give up.
  const also = more?.afterApproval?.() ?? Promise.resolve();
  await Promise.race([also, reaching]);
  await Promise.all([also, reaching]);

  assertFaultsHappened(starts, plan, busy, (await rollout(name)).spec.steps.length);

  // Then a process with no crash that handles every message twice: a duplicate only re-reads.
  await settleAudit();
  const quiet = auditMark();
  const twice = await runProcess(0, SEED, async (out) => out.split('\n').some((l) => l.startsWith(DUPLICATE_LINE)), {
    duplicate: '1',
    busy: CALM,
    path,
  });
  assert.ok(twice.duplicates >= 1, 'messages were handled twice');
  await settleAudit();
  assert.deepEqual(
    writesTo(auditSince(quiet), 'applications').map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`),
    [],
    'messages handled twice after the release wrote no Application',
  );
  return rollout(name);
}

// FLT-1, deletion under crashes: a runtime with deletionPolicy Delete is deleted while its
// control plane is killed (SIGKILL) right after seeded writes, again and again, handles messages
// twice and is answered 409s and 429s (test/helpers/faults/processes.ts). Checked from the API
// server's audit log and the objects: one removal rollout, however often its creation was cut
// short; no Application deleted, or marked for deletion, before the removal's approval was
// recorded; the releases removed in reverse order, each once the one after it in the plan was
// gone; and the end a run without faults reaches: every Application and its resources gone, the
// runtime gone with its finalizer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { CONTROL_PLANE_USER } from '../../harness/env.ts';
import { CRASH_LINE } from '../helpers/faults/lines.ts';
import { BUSY, SEED, type Start, crashUntil, seeded } from '../helpers/faults/processes.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart } from '../../harness/rolloutStage.ts';
import { approve, clearApplications, clearRolloutStage, installedRuntime, rolloutsOf } from '../../harness/rollouts.ts';
import { condition, deleteRuntime, getRuntime, kubectl } from '../../harness/runtime.ts';

const NAMES = ['fld-a', 'fld-b', 'fld-c'];
const rng = seeded(SEED + 1);

before(async () => {
  await clearRolloutStage();
  for (const n of NAMES) await pushChart(n, '1.0.0');
});

after(async () => {
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
});

const byControlPlane = (events: readonly AuditEvent[], verbs: readonly string[]): AuditEvent[] =>
  events.filter(
    (e) =>
      e.user.username === CONTROL_PLANE_USER &&
      e.objectRef?.resource === 'applications' &&
      verbs.includes(e.verb) &&
      (e.responseStatus?.code ?? 0) < 300,
  );
const received = (e: AuditEvent): number =>
  Date.parse((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp ?? '');
const completed = (e: AuditEvent): number => Date.parse((e as { stageTimestamp?: string }).stageTimestamp ?? '');

test('FLT-1 FIN-3 a deletion with deletionPolicy Delete whose control plane is killed right after seeded writes, handles messages twice and is answered 409s and 429s creates one removal, deletes nothing before its approval, removes the releases in reverse order and lets the runtime go', async () => {
  // Installed without faults: the faults are the deletion's.
  const cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout'),
  });
  const { uid } = await installedRuntime(
    {
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
      deletionPolicy: 'Delete',
    },
    NAMES.map((n, i) => chartRelease(n, i, '1.0.0')),
  );
  cp.stop();
  await cp.running;

  const mark = auditMark();
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  const starts: Start[] = [];
  const asked = async (): Promise<boolean> => {
    const c = condition(await getRuntime(), CONDITION.released);
    return c?.reason === 'AwaitingApproval' && c.message.includes('removal of every release');
  };
  await crashUntil('the removal awaiting approval', asked, rng, { starts, busy: BUSY });
  const removals = (await rolloutsOf(uid)).filter((r) => r.spec.type === 'Remove');
  assert.equal(
    removals.length,
    1,
    `one removal rollout, however often its creation was cut short: ${removals.map((r) => r.metadata.name).join(', ')}`,
  );
  const removal = removals[0];
  assert.ok(removal);
  assert.deepEqual(
    removal.spec.steps.map((s) => `${s.action} ${s.release}`),
    [...NAMES].reverse().map((n) => `Remove ${n}`),
  );
  const approving = approve(removal.metadata.name);
  const gone = async (): Promise<boolean> => (await getRuntime()) === undefined;
  await crashUntil('the runtime gone', gone, rng, { starts, busy: BUSY });
  await approving;
  const crashes = starts.filter((s) => s.crash);
  console.log(
    `seed ${SEED + 1}, deletion: ${starts.length} starts, ${crashes.length} crashes; crashes after: ${crashes.map((s) => s.crash?.slice(CRASH_LINE.length + 1)).join('; ')}`,
  );
  assert.ok(
    crashes.length >= NAMES.length,
    `at least one crash per release: ${crashes.length} of ${starts.length} starts`,
  );

  await settleAudit();
  const events = auditSince(mark);
  const approval = events.find(
    (e) =>
      e.impersonatedUser?.username === 'alice' &&
      e.objectRef?.resource === 'runtimerollouts' &&
      e.objectRef.name === removal.metadata.name &&
      e.verb === 'patch' &&
      (e.responseStatus?.code ?? 0) < 300,
  );
  assert.ok(approval, 'the approval is in the audit log');
  const touched = byControlPlane(events, ['patch', 'update', 'delete']);
  assert.deepEqual(
    touched.filter((e) => received(e) <= completed(approval)).map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`),
    [],
    'no Application marked or deleted before the approval was recorded',
  );
  const deletes = byControlPlane(events, ['delete']);
  assert.deepEqual(
    [...new Set(deletes.map((e) => e.objectRef?.name ?? ''))],
    [...NAMES].reverse(),
    'the releases deleted in reverse order, nothing else',
  );
  // Each release's first delete comes after the Application removed before it was gone: after
  // the last write anyone made to it (Argo CD's, taking its resources finalizer off).
  for (let i = 1; i < NAMES.length; i++) {
    const release = NAMES[NAMES.length - 1 - i] ?? '';
    const previous = NAMES[NAMES.length - i] ?? '';
    const first = deletes.find((e) => e.objectRef?.name === release);
    const lastWrite = events
      .filter(
        (e) =>
          e.objectRef?.resource === 'applications' &&
          e.objectRef.name === previous &&
          ['update', 'patch'].includes(e.verb) &&
          e.user.username !== CONTROL_PLANE_USER &&
          (e.responseStatus?.code ?? 0) < 300,
      )
      .at(-1);
    assert.ok(first, `${release} deleted`);
    assert.ok(lastWrite, `Argo CD wrote ${previous} while removing it`);
    assert.ok(received(first) >= completed(lastWrite), `${release} deleted after Argo CD's last write to ${previous}`);
  }
  for (const n of NAMES) {
    assert.equal(
      (await kubectl('get', 'application', n, '-n', NAMESPACES.argocd, '--ignore-not-found', '-o', 'name')).trim(),
      '',
      `Application ${n} gone`,
    );
    assert.equal(
      (await kubectl('get', 'deployment', '-n', `ns-${n}`, '--ignore-not-found', '-o', 'name')).trim(),
      '',
      `${n}'s workload deleted by Argo CD`,
    );
  }
});

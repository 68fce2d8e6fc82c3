// FLT-1, crashes and duplicated messages: rollouts driven by local mode's control plane in a
// child process that the fault harness (test/helpers/faults/crashingControlPlane.ts) kills with
// SIGKILL right after a chosen write to the API server, again and again, at seeded points from
// the target to the end; each process also handles a share of messages twice. After each crash a
// new process picks up from what the cluster holds. First an install of every release, then an
// upgrade that upgrades (the first release a manual one, acknowledged once it waits), removes and
// installs. Checked from the API server's audit log and the
// objects: no Application written before the approval; the releases first written in the
// rollout's order, each once the step before it ended; messages handled twice after the end
// write nothing; and each run ends where a run without faults ends (Released and Ready on the
// plan, one rollout to it, Succeeded, every Application at its version or gone). Last, an
// upgrade under the same crashes whose control plane also gets 409s and 429s from a busy API
// server, while kube-apiserver, Argo CD's application controller, repo-server and Redis, and the
// registry are restarted in turn (test/helpers/faults/restarts.ts) during the rollout.
// AICR_FAULT_SEED replays a seed; AICR_FAULT_RELEASES sizes the plan (2 by default; the long run
// uses 20); AICR_FAULT_STRIDE bounds the writes between crashes; AICR_FAULT_DUPLICATE the share
// of messages handled twice; AICR_FAULT_CONFLICTS and AICR_FAULT_THROTTLES the shares of requests
// answered 409 and 429 in the last test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { BUSY, RELEASES, seeded, SEED } from '../helpers/faults/processes.ts';
import { PARTS, type Part, restart } from '../helpers/faults/restarts.ts';
import { assertEndState, assertHistory, rolloutUnderFaults } from '../helpers/faults/rolloutUnderFaults.ts';
import { holdReleasePods } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { chartRelease, pushChart, storePlan } from '../../harness/rolloutStage.ts';
import { clearApplications, clearRolloutStage, released } from '../../harness/rollouts.ts';
import { createRuntime, deleteRuntime, kubectl } from '../../harness/runtime.ts';

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
  uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const { name: plan } = await storePlan(
    uid,
    names.map((n, i) => chartRelease(n, i, '1.0.0')),
  );
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng);
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(names.map((n) => [n, '1.0.0'])));
});

test('FLT-1 APR-3 crashes and duplicates: an upgrade of the same runtime that upgrades every release but the last (the first a manual release), removes the last and installs a new one stops for the acknowledgement, writes nothing further before it, and ends where a run without faults ends, with the same safety', async () => {
  assert.ok(uid, 'the runtime the install left');
  const kept = names.slice(0, -1);
  const removed = names.at(-1) ?? '';
  for (const n of kept) await pushChart(n, '1.1.0');
  await pushChart('flt-new', '1.0.0');
  const manual = { manual: true, steps: ['drain the GPU nodes one at a time'] };
  const { name: plan } = await storePlan(uid, [
    ...kept.map((n, i) => chartRelease(n, i, '1.1.0', i === 0 ? manual : {})),
    chartRelease('flt-new', kept.length, '1.0.0'),
  ]);
  const mark = auditMark();
  const acknowledged = async (): Promise<void> => {
    const waiting = await released(
      'AwaitingAcknowledgement',
      (reason) => reason === 'AwaitingAcknowledgement',
      120_000,
    );
    const name = /kubectl aicr acknowledge (aicr-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
    const versions = await kubectl(
      'get',
      'applications',
      '-n',
      'argocd',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name}={.metadata.annotations.operator\\.aicr\\.run/chart-version} {end}',
    );
    assert.deepEqual(
      versions.split(' ').filter((v) => v.startsWith('flt-') && v.endsWith('=1.1.0')),
      [`${kept[0] ?? ''}=1.1.0`],
      `nothing further written before the acknowledgement: ${versions}`,
    );
    const ack = await kubectlAicr(['acknowledge', name], 'alice');
    assert.equal(ack.code, 0, ack.stderr);
  };
  const done = await rolloutUnderFaults(uid, plan, rng, { afterApproval: acknowledged });
  assert.deepEqual(
    new Set(done.spec.steps.map((st) => `${st.action} ${st.release}`)),
    new Set([...kept.map((n) => `Upgrade ${n}`), `Remove ${removed}`, 'Install flt-new']),
  );
  assert.deepEqual(
    done.spec.acknowledgements?.map((a) => [a.release, a.acknowledgedBy]),
    [[kept[0], 'alice']],
  );
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(
    uid,
    plan,
    done,
    new Map([...kept.map((n): [string, string] => [n, '1.1.0']), [removed, 'gone'], ['flt-new', '1.0.0']]),
  );
});

test("FLT-1 crashes, 409s and 429s, watches ended 410 Gone, messages held back behind later ones, and restarts of kube-apiserver, Argo CD's application controller, repo-server and Redis, and the registry, in turn during an upgrade of every release: the same safety, and it ends where a run without faults ends", async () => {
  assert.ok(uid, 'the runtime the upgrade left');
  const releases = [...names.slice(0, -1), 'flt-new'];
  for (const n of releases) await pushChart(n, '1.2.0');
  const { name: plan } = await storePlan(
    uid,
    releases.map((n, i) => chartRelease(n, i, '1.2.0')),
  );
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
  assert.deepEqual(
    restarted.map((r) => r.part),
    [...PARTS],
    'every part was restarted',
  );
  const lastEnded = done.status?.steps?.at(-1)?.finishedAt;
  // The rollout records whole seconds: a restart that ended in the second the step finished counts as before it.
  const wholeSecond = (ms: number): number => Math.floor(ms / 1_000) * 1_000;
  assert.ok(
    restarted.every((r) => wholeSecond(r.at) <= Date.parse(lastEnded ?? '')),
    `every restart ended before the rollout's last step did (${lastEnded ?? 'never'}): ${restarted.map((r) => `${r.part} ${new Date(r.at).toISOString()}`).join(', ')}`,
  );
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(releases.map((n): [string, string] => [n, '1.2.0'])));
});

test('FLT-1 a crash after every write in turn: an upgrade of every release whose control plane is killed right after the first write of each process ends where a run without faults ends, with the same safety', async () => {
  assert.ok(uid, 'the runtime the upgrades left');
  const releases = [...names.slice(0, -1), 'flt-new'];
  for (const n of releases) await pushChart(n, '1.3.0');
  const { name: plan } = await storePlan(
    uid,
    releases.map((n, i) => chartRelease(n, i, '1.3.0')),
  );
  const mark = auditMark();
  const done = await rolloutUnderFaults(uid, plan, rng, { everyWrite: true });
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(uid, plan, done, new Map(releases.map((n): [string, string] => [n, '1.3.0'])));
});

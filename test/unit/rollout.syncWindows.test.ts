// WIN-3 in the rollout step's control flow, on the in-memory API: a deny window on the
// Applications' AppProject keeps a step from starting; a step already written whose sync the
// window holds past actionTimeout waits instead of failing, and gets its full actionTimeout once
// the window is gone. The AppProject is read once per look, and only when a step may start or
// is held.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ARGOCD, CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { runRollout } from '../../shared/steps/rollout/index.ts';
import type { StepReport } from '../../shared/look/contract.ts';
import { cluster, ctxOf, runtime } from '../helpers/rolloutLook.ts';

const SPEC = { actionTimeout: '10m', validation: { deployment: 'Disabled' } };
const DENY_NOW = { kind: 'deny', schedule: '0 9 * * *', duration: '3h', applications: ['gpu-*'] };

type Kube = ReturnType<typeof cluster>;

function project(kube: Kube, syncWindows: readonly object[]): void {
  kube.put(KIND.appProject, {
    metadata: { name: ARGOCD.project, namespace: NAMESPACES.argocd },
    spec: { syncWindows },
  });
}

const releasedOf = (report: StepReport) => report.conditions?.find((c) => c.type === CONDITION.released);

/** A runtime whose rollout waits for approval, then approved: the next look may start step 1. */
async function approved(kube: Kube): Promise<string> {
  await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T08:00:00Z'));
  const [created] = (await kube.list(KIND.runtimeRollout)).items;
  assert.ok(created, 'a rollout was created');
  await kube.patch(KIND.runtimeRollout, created.metadata.name, undefined, {
    spec: { approval: { approvedBy: 'alice', approvedAt: '2026-12-02T08:00:30Z' } },
  });
  return created.metadata.name;
}

async function step(kube: Kube, name: string): Promise<Record<string, unknown> | undefined> {
  const r = await kube.get(KIND.runtimeRollout, name);
  return ((r?.['status'] as { steps?: Record<string, unknown>[] } | undefined)?.steps ?? [])[0];
}

test("WIN-3 an active deny window of the AppProject on the Application keeps its step from starting: nothing is written, the wait names the project and looks again at Argo CD's pace", async () => {
  const kube = cluster();
  project(kube, [DENY_NOW]);
  await approved(kube);
  kube.requests.clear();
  const report = await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T10:00:00Z'));
  const c = releasedOf(report);
  assert.equal(c?.reason, 'OutsideMaintenanceWindow', c?.message);
  assert.match(
    c?.message ?? '',
    /waits before step 1 of 1, Install gpu-operator: outside the sync windows of Argo CD's AppProject aicr \(inside deny window "0 9 \* \* \*" \(3h, UTC\) until 2026-12-02T12:00:00.000Z\)/,
  );
  assert.equal(
    kube.count('apply', KIND.application) + kube.count('patch', KIND.application),
    0,
    'no Application written inside the deny window',
  );
  assert.equal(kube.count('get', KIND.appProject, ARGOCD.project), 1, 'the AppProject is read once in the look');
  assert.equal(report.recheckAfterMs, engineRecheckMs(), 'looks again at the engine recheck interval');

  // A window for other Applications does not hold it.
  project(kube, [{ ...DENY_NOW, applications: ['network-*'] }]);
  const next = await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T10:00:10Z'));
  assert.equal(releasedOf(next)?.reason, 'RolloutProgressing', releasedOf(next)?.message);
  assert.equal(kube.count('apply', KIND.application), 1, 'written once the window no longer applies');
});

test('WIN-3 a written step whose sync the window holds past actionTimeout waits instead of failing, and counts its actionTimeout again once the window is gone', async () => {
  const kube = cluster();
  const name = await approved(kube);
  await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T08:01:00Z'));
  assert.equal((await step(kube, name))?.['state'], 'InProgress', 'step 1 was written');

  // A deny window opens before Argo CD synced; past actionTimeout the step waits on it.
  project(kube, [DENY_NOW]);
  const held = await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T10:00:00Z'));
  assert.equal(releasedOf(held)?.reason, 'OutsideMaintenanceWindow', releasedOf(held)?.message);
  assert.match(releasedOf(held)?.message ?? '', /holds at step 1 of 1, Install gpu-operator/);
  const waiting = await step(kube, name);
  assert.deepEqual(
    pick(waiting, ['state', 'reason', 'timeoutFrom']),
    { state: 'InProgress', reason: 'OutsideMaintenanceWindow', timeoutFrom: '2026-12-02T10:00:00Z' },
    'not failed: held',
  );

  // The window ends at 12:00; the step has a whole actionTimeout from the last held look.
  project(kube, []);
  const after = await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T10:05:00Z'));
  assert.equal(releasedOf(after)?.reason, 'RolloutProgressing', releasedOf(after)?.message);
  assert.equal((await step(kube, name))?.['state'], 'InProgress');
  const late = await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T10:11:00Z'));
  assert.equal(
    (await step(kube, name))?.['state'],
    'Failed',
    `past actionTimeout from the window's end it fails: ${releasedOf(late)?.message}`,
  );
});

test('WIN-3 without a window past actionTimeout the step fails as before; the AppProject is read only at that moment, not on every look', async () => {
  const kube = cluster();
  const name = await approved(kube);
  await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T08:01:00Z'));
  kube.requests.clear();
  await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T08:05:00Z'));
  assert.equal(
    kube.count('get', KIND.appProject, ARGOCD.project),
    0,
    'a step in time and not held reads no AppProject',
  );
  await runRollout(ctxOf(kube, runtime(SPEC), '2026-12-02T08:12:00Z'));
  const s = await step(kube, name);
  assert.equal(s?.['state'], 'Failed');
  assert.equal(s?.['reason'], 'ActionTimeout');
});

function pick(o: Record<string, unknown> | undefined, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o?.[k]]));
}

function engineRecheckMs(): number {
  return ctxOf(cluster(), runtime()).timings.engineRecheckMs;
}

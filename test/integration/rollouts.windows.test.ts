// Maintenance windows on the test cluster with Argo CD's own controller (WIN-1, WIN-2): a rollout
// approved outside its window writes nothing until the window opens, and then starts by itself
// (a timer, nobody acting); a step in flight when the window closes finishes, and the next step
// waits for the next window; changing the windows wakes the rollout at once. And Argo CD's own
// sync windows on the Applications' AppProject (WIN-3): a deny window covering a release holds its
// step the same way, as Argo CD itself refuses to sync what the window covers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ARGOCD, NAMESPACES } from '../../shared/api/constants.ts';
import { SYNC_POLICY } from '../../shared/plans/applications.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { appReaches, createApp, deleteApp } from '../helpers/argocd.ts';
import { holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearRolloutStage,
  released,
  rollout,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { createRuntime, getRuntime, kubectl, stalledBecomes, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout');
const MINUTE = 60_000;
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

/**
 * The control plane's clock runs `offsetMs` from the machine's, so the test can put a window's
 * opening a few seconds ahead and move past its close without waiting for real cron minutes. Its
 * timers still run in real time: the opening is reached by the step's own timer, nobody acting.
 */
let offsetMs = 0;
const controlPlaneNow = (): Date => new Date(Date.now() + offsetMs);

/** Sets the clock so that a whole minute opens `aheadMs` from now; returns that minute. */
function windowAhead(aheadMs: number): Date {
  const start = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
  offsetMs = start.getTime() - aheadMs - Date.now();
  return start;
}

const appCreated = async (name: string): Promise<string> =>
  kubectl(
    'get',
    'application',
    name,
    '-n',
    NAMESPACES.argocd,
    '--ignore-not-found',
    '-o',
    'jsonpath={.metadata.creationTimestamp}',
  );

before(async () => {
  await clearRolloutStage();
  cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: ROLLOUT_ONLY,
    now: controlPlaneNow,
  });
});

after(async () => {
  if (cp) await stopAndClear(cp);
});

test('WIN-1 WIN-2 a rollout approved outside its window writes nothing until the window opens and then starts by itself; a step in flight at the close finishes and the next waits for the next window', async () => {
  // Created on the machine's clock: the schedule is only set once the rollout waits for approval.
  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
      maintenance: { windows: [{ schedule: '0 0 1 1 *', duration: '1m' }] },
    })
  ).metadata.uid;
  for (const name of ['win-alpha', 'win-bravo']) await pushChart(name, '1.0.0');
  const { name: plan } = await storePlan(uid, [
    chartRelease('win-alpha', 0, '1.0.0'),
    chartRelease('win-bravo', 1, '1.0.0'),
  ]);
  await target(plan);
  const waiting = await awaitingRollout(plan);
  const start = windowAhead(20_000);
  const close = new Date(start.getTime() + MINUTE);
  const schedule = `${start.getUTCMinutes()} ${start.getUTCHours()} * * *`;
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { maintenance: { windows: [{ schedule, duration: '1m' }] } } }),
  );
  await withKnob(holdReleasePods(['ns-win-alpha']), async () => {
    await approve(waiting.metadata.name);
    const outside = await released(
      'OutsideMaintenanceWindow before step 1',
      (reason, message) => reason === 'OutsideMaintenanceWindow' && message.includes(start.toISOString()),
    );
    assert.match(outside.message, /waits before step 1 of 2, Install win-alpha/);
    assert.ok(outside.message.includes(`the next window opens at ${start.toISOString()}`), outside.message);
    await stalledBecomes('False'); // a window wait needs nobody
    assert.equal(await appCreated('win-alpha'), '', 'nothing written before the window');
    const described = await kubectlAicr(['describe', waiting.metadata.name], 'alice');
    assert.ok(
      described.stdout.includes(start.toISOString()),
      `kubectl aicr describe names the next window:\n${described.stdout}`,
    );

    // Woken by its own timer: nobody touches anything until step 1 is in flight.
    const created = await waitFor(
      'win-alpha written in the window',
      async () => (await appCreated('win-alpha')) || undefined,
      MINUTE,
    );
    const createdOnClock = Date.parse(created) + offsetMs;
    assert.ok(
      createdOnClock >= start.getTime() - 1_000,
      `written at ${created} (${new Date(createdOnClock).toISOString()} on the control plane's clock), not before the window opened at ${start.toISOString()}`,
    );
    assert.ok(createdOnClock < close.getTime(), `written inside the window, before ${close.toISOString()}`);
    await waitFor(
      'step 1 in flight',
      async () =>
        (await rollout(waiting.metadata.name)).status?.steps?.[0]?.state === 'InProgress' ? true : undefined,
      30_000,
    );
    // The window closes while step 1 is in flight.
    offsetMs += close.getTime() + 2_000 - controlPlaneNow().getTime();
  });
  // Released from the hold after the close, step 1 finishes; step 2 waits for tomorrow's window.
  const tomorrow = new Date(start.getTime() + 24 * 60 * MINUTE).toISOString();
  const next = await released(
    'step 2 waits for the next window',
    (reason, message) => reason === 'OutsideMaintenanceWindow' && message.includes('step 2 of 2'),
    2 * MINUTE,
  );
  assert.ok(next.message.includes(`the next window opens at ${tomorrow}`), next.message);
  const r = await rollout(waiting.metadata.name);
  assert.deepEqual(
    r.status?.steps?.map((s) => s.state),
    ['Succeeded', 'Pending'],
  );
  assert.ok(
    Date.parse(r.status?.steps?.[0]?.finishedAt ?? '') >= close.getTime(),
    `step 1 finished after the close, at ${r.status?.steps?.[0]?.finishedAt}`,
  );
  assert.equal(await appCreated('win-bravo'), '', 'no new step started after the close');

  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { maintenance: null } }),
  );
  await released(
    `Released=True on ${plan} once the windows are lifted`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    90_000,
  );
  offsetMs = 0;
});

/** Sets the AppProject's sync windows by hand (the chart sets them from argocd.syncWindows); null removes them. */
async function projectWindows(windows: readonly object[] | null): Promise<void> {
  await kubectl(
    'patch',
    'appproject',
    ARGOCD.project,
    '-n',
    NAMESPACES.argocd,
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { syncWindows: windows } }),
  );
}

test("WIN-3 an active deny window of Argo CD's AppProject on a release holds its step: nothing is written, Argo CD itself refuses to sync an Application the window covers, and the rollout goes on once the window is gone", async () => {
  // The runtime of the test before, Released with its windows lifted; made here when run alone.
  const uid = (
    (await getRuntime()) ??
    (await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    }))
  ).metadata.uid;
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { maintenance: null } }),
  );
  for (const name of ['win-alpha', 'win-bravo']) await pushChart(name, '1.0.0');
  await pushChart('win-charlie', '1.0.0');
  const charlie = chartRelease('win-charlie', 2, '1.0.0');
  const { name: plan } = await storePlan(uid, [
    chartRelease('win-alpha', 0, '1.0.0'),
    chartRelease('win-bravo', 1, '1.0.0'),
    charlie,
  ]);
  const probe = 'win3-probe';
  await projectWindows([{ kind: 'deny', schedule: '* * * * *', duration: '1h', applications: ['win-charlie', probe] }]);
  try {
    await target(plan);
    const waiting = await awaitingRollout(plan);
    await approve(waiting.metadata.name);
    const held = await released(
      'held by the AppProject window',
      (reason, message) => reason === 'OutsideMaintenanceWindow' && message.includes('win-charlie'),
    );
    assert.match(
      held.message,
      new RegExp(
        `waits before step \\d of \\d, Install win-charlie: outside the sync windows of Argo CD's AppProject ${ARGOCD.project} \\(inside deny window "\\* \\* \\* \\* \\*" \\(1h, UTC\\)`,
      ),
    );
    await stalledBecomes('False'); // the wait needs nobody
    assert.equal(await appCreated('win-charlie'), '', 'nothing written while the window holds it');

    // Argo CD reads the window as the control plane did: it compares the probe, and never syncs it.
    await createApp(probe, {
      project: ARGOCD.project,
      destination: { server: ARGOCD.inClusterServer, namespace: `ns-${probe}` },
      // Pinned by digest, as the control plane writes its own Applications (SEC-9).
      source: {
        repoURL: `oci://${charlie.chart?.repoURL ?? ''}/win-charlie`,
        path: '.',
        targetRevision: charlie.chart?.digest,
        helm: { releaseName: probe },
      },
      syncPolicy: SYNC_POLICY,
    });
    const compared = await appReaches(
      probe,
      'compared by Argo CD',
      (a) => a?.status?.sync?.status === 'OutOfSync' && a.status.reconciledAt !== undefined,
      60_000,
    );
    assert.equal(
      compared?.status?.operationState,
      undefined,
      'Argo CD refused the automated sync inside the deny window',
    );
    assert.equal((compared as { operation?: unknown } | undefined)?.operation, undefined);
  } finally {
    await projectWindows(null);
  }
  await appReaches(
    probe,
    'synced by Argo CD once the window is gone',
    (a) => a?.status?.operationState?.phase === 'Succeeded',
    120_000,
  );
  await released(
    `Released=True on ${plan} once the window is gone`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    120_000,
  );
  assert.ok(await appCreated('win-charlie'), 'win-charlie written after the window');
  await deleteApp(probe);
});

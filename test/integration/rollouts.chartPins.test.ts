// SEC-5 on the test cluster with Argo CD's own controller: a plan pins each chart's manifest
// digest, and before a step writes a release the rollout step asks the registry whether that
// version still holds it. A chart pushed again under the plan's version stalls the rollout with
// ChartChanged and nothing written for that release; the pinned bytes pushed back let it finish
// by itself. A registry that cannot be asked holds the rollout, and writes nothing, until it answers.
// SEC-9: the Applications name each chart by that digest, so a chart pushed again after the
// rollout changes nothing Argo CD renders, even after a hard refresh.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NAMESPACES } from '../../shared/api/constants.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { ensureRegistrySecrets } from '../../harness/configuration.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { stopRegistry, withKnob } from '../helpers/knobs.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearRolloutStage,
  released,
  rollout,
  stalledOn,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { createRuntime, kubectl } from '../../harness/runtime.ts';

const ROLLOUT_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout');
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;
let runtimeUID = '';

/** A release of `name` at 1.0.0 whose chart the plan pins at `digest`. */
function pinnedRelease(name: string, order: number, digest: string): Release {
  const r = chartRelease(name, order, '1.0.0');
  return { ...r, ...(r.chart ? { chart: { ...r.chart, digest } } : {}) };
}

const writesOf = (events: readonly AuditEvent[], app: string): string[] =>
  events
    .filter(
      (e) =>
        e.impersonatedUser?.username === 'aicr-step-rollout' &&
        e.objectRef?.resource === 'applications' &&
        e.objectRef.name === app &&
        ['create', 'update', 'patch'].includes(e.verb),
    )
    .map((e) => `${e.verb} ${app}`);

before(async () => {
  await clearRolloutStage();
  await ensureRegistrySecrets();
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
  runtimeUID = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '60s',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
});

after(async () => {
  if (cp) await stopAndClear(cp);
});

test('SEC-5 a chart pushed again under its version after the plan was made is refused before its step writes anything: ChartChanged names both digests; the pinned chart pushed back lets the rollout finish by itself', async () => {
  const alpha = await pushChart('pin-alpha', '1.0.0');
  const bravo = await pushChart('pin-bravo', '1.0.0');
  const { name: plan } = await storePlan(runtimeUID, [
    pinnedRelease('pin-alpha', 0, alpha),
    pinnedRelease('pin-bravo', 1, bravo),
  ]);
  // The same version again with other bytes: what someone with push rights under the prefix can do.
  const foreign = await pushChart('pin-bravo', '1.0.0', { versionInManifests: false });
  assert.notEqual(foreign, bravo, 'the re-pushed chart is other bytes');
  const mark = auditMark();
  await target(plan);
  const waiting = await awaitingRollout(plan);
  await approve(waiting.metadata.name);
  const stalled = await released('ChartChanged at pin-bravo', (reason) => reason === 'ChartChanged', 90_000);
  assert.match(stalled.message, /step 2 of 2, Install pin-bravo/);
  assert.ok(
    stalled.message.includes(`the plan recorded ${bravo}, and the registry now holds ${foreign}`),
    stalled.message,
  );
  assert.match(
    stalled.message,
    new RegExp(`kubectl -n ${NAMESPACES.system} delete configmap ${plan}`),
    'the fix names the plan to delete',
  );
  await stalledOn('ChartChanged');
  const r = await rollout(waiting.metadata.name);
  assert.deepEqual(
    r.status?.steps?.map((s) => [s.release, s.state, s.reason]),
    [
      ['pin-alpha', 'Succeeded', 'Done'],
      ['pin-bravo', 'Pending', 'ChartChanged'],
    ],
  );
  await settleAudit();
  const since = auditSince(mark);
  assert.ok(writesOf(since, 'pin-alpha').length > 0, 'pin-alpha, whose chart is as pinned, was written');
  assert.deepEqual(writesOf(since, 'pin-bravo'), [], 'nothing was written for pin-bravo');
  assert.equal(
    await kubectl('get', 'application', 'pin-bravo', '-n', NAMESPACES.argocd, '--ignore-not-found', '-o', 'name'),
    '',
  );

  assert.equal(await pushChart('pin-bravo', '1.0.0'), bravo, 'the pinned bytes give the pinned digest');
  await released(
    `Released=True on ${plan}`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    90_000,
  );
  const done = await rollout(waiting.metadata.name);
  assert.equal(done.status?.outcome, 'Succeeded');
  assert.equal(
    await kubectl(
      'get',
      'application',
      'pin-bravo',
      '-n',
      NAMESPACES.argocd,
      '-o',
      'jsonpath={.metadata.annotations.operator\\.aicr\\.run/chart-digest}',
    ),
    bravo,
    'the Application carries the digest it was checked against',
  );
});

type PinnedApp = {
  metadata: { annotations?: Record<string, string> };
  spec: { source?: { repoURL?: string; targetRevision?: string; chart?: string } };
  status?: { reconciledAt?: string; sync?: { status?: string; revision?: string } };
};

const readPinned = async (name: string): Promise<PinnedApp> =>
  JSON.parse(await kubectl('get', 'application', name, '-n', NAMESPACES.argocd, '-o', 'json')) as PinnedApp;

/** The Pod template annotations of a fixture release's workload, as deployed. */
const deployedTemplate = (release: string): Promise<string> =>
  kubectl(
    'get',
    'deployment',
    `${release}-workload`,
    '-n',
    `ns-${release}`,
    '-o',
    'jsonpath={.spec.template.metadata.annotations}',
  );

/** Asks Argo CD for a hard refresh of the Application and waits until it has reported after it. */
async function hardRefresh(name: string): Promise<PinnedApp> {
  const asked = Math.floor(Date.now() / 1000) * 1000;
  await kubectl(
    'annotate',
    'application',
    name,
    '-n',
    NAMESPACES.argocd,
    'argocd.argoproj.io/refresh=hard',
    '--overwrite',
  );
  const done = (a: PinnedApp): boolean =>
    a.metadata.annotations?.['argocd.argoproj.io/refresh'] === undefined &&
    Date.parse(a.status?.reconciledAt ?? '') >= asked;
  const start = Date.now();
  let app = await readPinned(name);
  while (!done(app) && Date.now() - start < 60_000) {
    await new Promise((r) => setTimeout(r, 500));
    app = await readPinned(name);
  }
  assert.ok(done(app), `Argo CD did the hard refresh of ${name}`);
  return app;
}

test('SEC-9 a chart pushed again under the version Argo CD deploys changes nothing deployed, even after a hard refresh: the Application names the approved digest and Argo CD renders those bytes', async () => {
  const before = await readPinned('pin-alpha');
  const pin = before.spec.source?.targetRevision ?? '';
  assert.match(pin, /^sha256:[a-f0-9]{64}$/, 'the source names a digest, not a version');
  assert.equal(before.spec.source?.chart, undefined);
  assert.match(before.spec.source?.repoURL ?? '', /^oci:\/\/.+\/pin-alpha$/);
  assert.equal(before.metadata.annotations?.['operator.aicr.run/chart-version'], '1.0.0', 'the version stays visible');
  const deployed = await deployedTemplate('pin-alpha');
  assert.match(deployed, /chart-version/, 'the approved bytes render the version into the Pod template');

  const foreign = await pushChart('pin-alpha', '1.0.0', { versionInManifests: false });
  assert.notEqual(foreign, pin, 'other bytes under the same version');
  try {
    const after = await hardRefresh('pin-alpha');
    assert.deepEqual(
      [after.status?.sync?.status, after.status?.sync?.revision],
      ['Synced', pin],
      'Argo CD compared the pinned bytes, and they still match what runs',
    );
    assert.equal(await deployedTemplate('pin-alpha'), deployed, 'nothing deployed changed');
  } finally {
    assert.equal(await pushChart('pin-alpha', '1.0.0'), pin, 'the approved bytes are back under the version');
  }
});

test('SEC-5 a registry that cannot be asked holds the next step with nothing written, saying the digests cannot be checked; it goes on once the registry answers', async () => {
  const charlie = await pushChart('pin-charlie', '1.0.0');
  const current = (await kubectl('get', 'clusterruntime', 'cluster', '-o', 'jsonpath={.status.activePlan}')).trim();
  assert.ok(current, 'the first test left an active plan');
  const alpha = await pushChart('pin-alpha', '1.0.0');
  const bravo = await pushChart('pin-bravo', '1.0.0');
  const { name: plan } = await storePlan(runtimeUID, [
    pinnedRelease('pin-alpha', 0, alpha),
    pinnedRelease('pin-bravo', 1, bravo),
    pinnedRelease('pin-charlie', 2, charlie),
  ]);
  await target(plan);
  const waiting = await awaitingRollout(plan);
  const mark = auditMark();
  await withKnob(stopRegistry(), async () => {
    await approve(waiting.metadata.name);
    const held = await released(
      'held: digests cannot be checked',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('could not be checked'),
      60_000,
    );
    assert.match(held.message, /Install pin-charlie/);
    assert.match(held.message, /chart digests of release pin-charlie could not be checked: registry .* did not answer/);
    await settleAudit();
    assert.deepEqual(
      writesOf(auditSince(mark), 'pin-charlie'),
      [],
      'nothing was written while the registry could not be asked',
    );
  });
  await released(
    `Released=True on ${plan}`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    90_000,
  );
});

// Orphans and adoption on the test cluster with Argo CD's own application controller: the ownership marks the
// runbook's custom columns show (ADO-2); a new runtime that finds another runtime's Applications
// stalls and writes nothing (ADO-1); naming that runtime adopts them through an approved Adopt
// rollout that changes only the ownership annotations, after an Orphan deletion and after the
// finalizer escape hatch (ADO-3); Applications that do not rebuild into their plan are
// AdoptionBlocked, naming the object (ADO-4). Only the rollout step runs (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, NAMESPACES } from '../../shared/api/constants.ts';
import { type GenericObject, KIND } from '../../shared/kube/kinds.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { auditMark } from '../../harness/audit.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { runbookOk } from '../helpers/runbook.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  assertNoApplicationWrite,
  clearApplications,
  clearRolloutStage,
  installedRuntime,
  released,
  rolloutsOf,
  stalledOn,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { createRuntime, deleteRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
const RELEASES = (version = '1.0.0'): Release[] => [
  chartRelease('alpha', 0, version),
  chartRelease('bravo', 1, '1.0.0', { dependsOn: ['alpha'] }),
];
const SPEC = {
  aicrVersion: 'v0.11.1',
  criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
  validation: { deployment: 'Disabled' },
};
const COLUMNS =
  'NAME:.metadata.name,RUNTIME:.metadata.annotations.operator\\.aicr\\.run/runtime-uid,ORPHANED:.metadata.annotations.operator\\.aicr\\.run/orphaned-from,PLAN:.metadata.annotations.operator\\.aicr\\.run/plan-digest';
let cp: ReturnType<typeof startCapturedControlPlane>;

before(async () => {
  await clearRolloutStage();
  for (const version of ['1.0.0', '1.1.0']) await pushChart('alpha', version);
  await pushChart('bravo', '1.0.0');
  cp = startControlPlane();
});

function startControlPlane(): ReturnType<typeof startCapturedControlPlane> {
  return startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
}

after(() => stopAndClear(cp));

/** A runtime rolled out to the two releases; returns its UID and plan. */
function installed(spec: Record<string, unknown> = {}): Promise<{ uid: string; plan: string }> {
  return installedRuntime({ ...SPEC, ...spec }, RELEASES());
}

async function orphanedBy(how: 'Orphan' | 'escape hatch'): Promise<{ uid: string; plan: string }> {
  await deleteRuntime();
  await clearApplications();
  await kubectl('delete', 'runtimerollouts', '--all');
  const old = await installed();
  // The escape hatch is for a runtime stuck Terminating, as with a control plane that is not running.
  if (how === 'escape hatch') {
    cp.stop();
    await cp.running;
  }
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  if (how === 'escape hatch')
    await runbookOk(`kubectl patch clusterruntime cluster --type merge -p '{"metadata":{"finalizers":null}}'`);
  await waitFor('the old runtime is gone', async () => ((await getRuntime()) ? undefined : true), 60_000);
  if (how === 'escape hatch') cp = startControlPlane();
  return old;
}

async function applications(): Promise<GenericObject[]> {
  return (await stepKube('rollout').list(KIND.application, { namespace: NAMESPACES.argocd })).items.sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
}

/** A new runtime whose resolution settles on the same releases, so the adopted plan is its target. */
async function successor(spec: Record<string, unknown> = {}): Promise<string> {
  const uid = (await createRuntime({ ...SPEC, ...spec })).metadata.uid;
  const { name } = await storePlan(uid, RELEASES());
  await target(name);
  return uid;
}

test("ADO-2 owned Applications carry the ownership label and annotations, and the runbook's custom columns show them", async () => {
  await deleteRuntime();
  await clearApplications();
  const { uid, plan } = await installed();
  const shown = await kubectl(
    '-n',
    'argocd',
    'get',
    'applications',
    '-l',
    'app.kubernetes.io/managed-by=aicr-operator',
    '-o',
    `custom-columns=${COLUMNS}`,
  );
  const rows = shown
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
  assert.deepEqual(rows[0], ['NAME', 'RUNTIME', 'ORPHANED', 'PLAN']);
  assert.deepEqual(
    rows.slice(1).map((r) => [r[0], r[1], r[2]]),
    [
      ['alpha', uid, '<none>'],
      ['bravo', uid, '<none>'],
    ],
  );
  for (const r of rows.slice(1)) assert.equal(`aicr-plan-${(r[3] ?? '').replace('sha256:', '').slice(0, 16)}`, plan);
});

test('ADO-1 a new runtime that finds Applications of a deleted runtime stalls with OrphanedObjectsPresent naming the UID and the Applications, and writes nothing', async () => {
  const old = await orphanedBy('Orphan');
  const mark = auditMark();
  const uid = await successor();
  const c = await released('OrphanedObjectsPresent', (reason) => reason === 'OrphanedObjectsPresent');
  assert.match(c.message, new RegExp(`runtime ${old.uid}: alpha, bravo`));
  assert.match(c.message, new RegExp(`"adoption":\\{"runtimeUID":"${old.uid}"\\}`));
  await stalledOn('OrphanedObjectsPresent');
  assert.deepEqual(await rolloutsOf(uid), [], 'no rollout is made');
  await assertNoApplicationWrite(mark);
});

test("ADO-3 COND-5 naming the orphaned runtime with the runbook's patch adopts its Applications through an approved Adopt rollout that changes only the ownership annotations; the next rollout needs approval as unknown", async () => {
  const old = (await applications())[0]?.metadata.annotations?.[ANNOTATION.orphanedFrom] ?? '';
  const before = await applications();
  const mark = auditMark();
  await runbookOk(
    `kubectl patch clusterruntime cluster --type merge -p '{"spec":{"adoption":{"runtimeUID":"${old}"}}}'`,
  );
  const waiting = await released(
    'the adoption waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('adoption of the releases'),
  );
  const uid = (await getRuntime())?.metadata.uid ?? '';
  const adopt = (await rolloutsOf(uid)).find((r) => r.spec.type === 'Adopt');
  assert.ok(adopt, waiting.message);
  assert.deepEqual(
    adopt.spec.steps.map((s) => `${s.action} ${s.release} ${s.verdict ?? ''}`),
    ['Adopt alpha unknown', 'Adopt bravo unknown'],
  );
  const events = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${adopt.metadata.name}`,
    '-o',
    'jsonpath={.items[*].message}',
  );
  assert.match(events, /adoption of 2 Applications as plan aicr-plan-[0-9a-f]+: every one was written by one plan/);
  await assertNoApplicationWrite(mark);
  await approve(adopt.metadata.name);
  await released(
    'Released on the adopted plan',
    (reason, message) => reason === 'Released' && message.includes(adopt.spec.toPlan),
    30_000,
  );
  const after = await applications();
  assert.deepEqual(
    after.map((a) => [
      a.metadata.annotations?.[ANNOTATION.runtimeUID],
      a.metadata.annotations?.[ANNOTATION.orphanedFrom],
    ]),
    [
      [uid, undefined],
      [uid, undefined],
    ],
  );
  const rest = (a: GenericObject): unknown => ({
    spec: (a as { spec?: unknown }).spec,
    labels: a.metadata.labels,
    plan: a.metadata.annotations?.[ANNOTATION.planDigest],
    finalizers: a.metadata.finalizers,
  });
  assert.deepEqual(after.map(rest), before.map(rest), 'nothing but the ownership annotations changed');
  // Rolling forward from the adopted plan: a changed step is assessed unknown and waits for an approver.
  const { name: next } = await storePlan(uid, RELEASES('1.1.0'));
  await target(next);
  await released(
    'the forward rollout waits',
    (reason, message) => reason === 'AwaitingApproval' && message.includes(next),
  );
  const forward = (await rolloutsOf(uid)).find((r) => r.spec.toPlan === next);
  assert.deepEqual(
    forward?.spec.steps.map((s) => `${s.action} ${s.release} ${s.verdict ?? ''}`),
    ['Upgrade alpha unknown'],
  );
});

test("ADO-3 COND-5 Applications left by the runbook's finalizer escape hatch, run as written, (no orphaned-from mark) are adopted the same way", async () => {
  const old = await orphanedBy('escape hatch');
  assert.deepEqual(
    (await applications()).map((a) => a.metadata.annotations?.[ANNOTATION.orphanedFrom]),
    [undefined, undefined],
  );
  const uid = await successor({ adoption: { runtimeUID: old.uid } });
  const waiting = await released(
    'the adoption waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('adoption of the releases'),
  );
  await approve(/rollout (aicr-adopt-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '');
  await released(
    'Released on the adopted plan',
    (reason, message) => reason === 'Released' && message.includes(old.plan),
    30_000,
  );
  assert.deepEqual(
    (await applications()).map((a) => a.metadata.annotations?.[ANNOTATION.runtimeUID]),
    [uid, uid],
  );
});

test('ADO-4 Applications that no longer rebuild into the plan they record are AdoptionBlocked, naming the object; undoing the edit lets the adoption go on', async () => {
  const old = await orphanedBy('Orphan');
  await kubectl('-n', 'argocd', 'annotate', 'applications.argoproj.io', 'bravo', `${ANNOTATION.planDigest}-`);
  const mark = auditMark();
  await successor({ adoption: { runtimeUID: old.uid } });
  const missing = await released('AdoptionBlocked', (reason) => reason === 'AdoptionBlocked');
  assert.match(
    missing.message,
    /do not rebuild into a plan: Application bravo: missing annotation operator.aicr.run\/plan-digest/,
  );
  const digest = (await applications())[0]?.metadata.annotations?.[ANNOTATION.planDigest] ?? '';
  // alpha is edited before bravo's annotation comes back, so at no moment do the Applications
  // rebuild into a plan: otherwise the step could create the Adopt rollout in between.
  await kubectl(
    '-n',
    'argocd',
    'patch',
    'applications.argoproj.io',
    'alpha',
    '--type',
    'merge',
    '-p',
    '{"spec":{"source":{"helm":{"valuesObject":{"replicas":3}}}}}',
  );
  await kubectl('-n', 'argocd', 'annotate', 'applications.argoproj.io', 'bravo', `${ANNOTATION.planDigest}=${digest}`);
  const edited = await released(
    'AdoptionBlocked for the edit',
    (reason, message) => reason === 'AdoptionBlocked' && message.includes('edited outside the control plane'),
  );
  assert.match(
    edited.message,
    new RegExp(`Applications alpha, bravo record plan digest ${digest}, but what they carry now rebuilds into sha256:`),
  );
  await stalledOn('AdoptionBlocked');
  await assertNoApplicationWrite(mark);
  await kubectl(
    '-n',
    'argocd',
    'patch',
    'applications.argoproj.io',
    'alpha',
    '--type',
    'json',
    '-p',
    '[{"op":"remove","path":"/spec/source/helm/valuesObject"}]',
  );
  await released(
    'the adoption waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('adoption of the releases'),
  );
});

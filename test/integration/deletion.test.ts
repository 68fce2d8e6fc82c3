// Deleting a runtime on the test cluster with Argo CD's own application controller: the cleanup finalizer goes on
// before anything is written to Argo CD (FIN-1); deletionPolicy Orphan marks every Application
// and changes nothing else (FIN-2); removing the finalizer by hand leaves Applications a next
// runtime can rebuild a plan from; deletionPolicy Delete removes every release in reverse order
// after an approval (FIN-3); a removal that cannot finish fails at actionTimeout and keeps the
// finalizer until a retry (FIN-5). Only the rollout step runs (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD, CONDITION, FINALIZER, NAMESPACES } from '../../shared/api/constants.ts';
import { EVENT_REASON } from '../../shared/events/recorder.ts';
import { fieldAt } from '../../shared/kube/fieldPath.ts';
import { type GenericObject, KIND } from '../../shared/kube/kinds.ts';
import { applicationsToReleases } from '../../shared/plans/applications.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  FAILING_SOON,
  approve,
  assertNoApplicationWrite,
  clearApplications,
  clearRolloutStage,
  installedRuntime,
  released,
  rolloutsOf,
  setActionTimeout,
  stalledOn,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { deleteRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
const RELEASES = (): Release[] => [
  chartRelease('alpha', 0, '1.0.0'),
  chartRelease('bravo', 1, '1.0.0'),
  chartRelease('charlie', 2, '1.0.0'),
];
const SPEC = {
  aicrVersion: 'v0.11.1',
  criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
  validation: { deployment: 'Disabled' },
};
let cp: ReturnType<typeof startCapturedControlPlane>;

before(async () => {
  await clearRolloutStage();
  for (const name of ['alpha', 'bravo', 'charlie']) await pushChart(name, '1.0.0');
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: ROLLOUT_ONLY });
});

after(() => stopAndClear(cp));

/** A fresh runtime with `spec`, rolled out to the three releases; returns its UID and plan. */
async function installed(spec: Record<string, unknown>): Promise<{ uid: string; plan: string }> {
  await deleteRuntime();
  await clearApplications();
  return installedRuntime({ ...SPEC, ...spec }, RELEASES());
}

async function applications(): Promise<GenericObject[]> {
  return (await stepKube('rollout').list(KIND.application, { namespace: NAMESPACES.argocd })).items.sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
}

function rolloutStepWrites(events: readonly AuditEvent[], resource: string): AuditEvent[] {
  return events.filter(
    (e) =>
      e.impersonatedUser?.username === 'aicr-step-rollout' &&
      e.objectRef?.resource === resource &&
      !e.objectRef.subresource &&
      ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
      (e.responseStatus?.code ?? 0) < 300,
  );
}

const gone = (): Promise<true> =>
  waitFor('the runtime is gone', async () => ((await getRuntime()) ? undefined : true), 60_000);

test('FIN-1 the cleanup finalizer is on the runtime before the rollout step creates a rollout or writes an Application', async () => {
  const mark = auditMark();
  await installed({});
  assert.ok((await getRuntime())?.metadata.finalizers?.includes(FINALIZER.cleanup));
  await settleAudit();
  const events = auditSince(mark);
  const finalizer = events.indexOf(rolloutStepWrites(events, 'clusterruntimes')[0] as AuditEvent);
  const firstRollout = events.indexOf(rolloutStepWrites(events, 'runtimerollouts')[0] as AuditEvent);
  const firstApp = events.indexOf(rolloutStepWrites(events, 'applications')[0] as AuditEvent);
  assert.ok(
    finalizer >= 0 && firstRollout > finalizer && firstApp > finalizer,
    `finalizer at ${finalizer}, first rollout at ${firstRollout}, first Application at ${firstApp}`,
  );
});

test('FIN-2 SEC-11 deletionPolicy Orphan marks every Application orphaned-from the runtime, changes nothing else on them, ends the unfinished rollout Orphaned and lets the runtime go; its rollouts stay, listed by kubectl aicr history', async () => {
  const { uid } = await installed({});
  const { name: next } = await storePlan(
    uid,
    RELEASES().map((r) => ({ ...r, values: { replicas: 2 } })),
  );
  await target(next);
  await released(
    'a second rollout waits',
    (reason, message) => reason === 'AwaitingApproval' && message.includes(next),
  );
  const before = await applications();
  const mark = auditMark();
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  await gone();
  const after = await applications();
  assert.deepEqual(
    after.map((a) => a.metadata.annotations?.[ANNOTATION.orphanedFrom]),
    [uid, uid, uid],
  );
  const strip = (a: GenericObject): unknown => {
    const { annotations = {}, labels, finalizers, name } = a.metadata;
    const rest = Object.fromEntries(Object.entries(annotations).filter(([k]) => k !== ANNOTATION.orphanedFrom));
    return { name, labels, finalizers, annotations: rest, spec: (a as { spec?: unknown }).spec };
  };
  assert.deepEqual(after.map(strip), before.map(strip), 'nothing but the annotation changed');
  await settleAudit();
  const writes = rolloutStepWrites(auditSince(mark), 'applications').map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`);
  assert.deepEqual(writes.sort(), ['patch alpha', 'patch bravo', 'patch charlie']);
  const reasons = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '-o',
    'jsonpath={range .items[*]}{.reason}={.message}{"\\n"}{end}',
  );
  assert.match(
    reasons,
    new RegExp(
      `${EVENT_REASON.runtimeOrphaned}=ClusterRuntime cluster was deleted with deletionPolicy Orphan: 3 Applications \\(alpha, bravo, charlie\\) keep running, marked operator.aicr.run/orphaned-from=${uid}; 1 unfinished rollout ended Orphaned`,
    ),
  );
  assert.match(reasons, /RuntimeOrphaned=rollout aicr-rollout-[0-9a-z-]+ \(.*\) ended Orphaned/);
  // SEC-11: the record outlives the runtime: both rollouts stay, with who approved the first.
  const shown = await kubectlAicr(['history', '-o', 'json'], 'alice');
  assert.equal(shown.code, 0, shown.stderr);
  const rows = (
    JSON.parse(shown.stdout) as { runtimeUID: string; current: boolean; outcome?: string; approvedBy?: string }[]
  ).filter((r) => r.runtimeUID === uid);
  assert.deepEqual(
    rows.map((r) => [r.current, r.outcome, r.approvedBy]),
    [
      [false, 'Orphaned', undefined],
      [false, 'Succeeded', 'alice'],
    ],
    'newest first, each marked as of a runtime that no longer exists',
  );
  const text = await kubectlAicr(['history'], 'alice');
  assert.match(text.stdout, new RegExp(`${uid.slice(0, 8)} \\(deleted\\)`));
});

test('FIN-2 the finalizer removed by hand (the runbook escape hatch) leaves the Applications as they were, owned by the old UID and rebuilding into its plan', async () => {
  const { uid, plan } = await installed({ deletionPolicy: 'Delete' });
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  // The removal waits for an approver; a person gives up on it and takes the finalizer off.
  await released(
    'the removal waits',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('removal of every release'),
  );
  const mark = auditMark();
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}');
  await gone();
  const apps = await applications();
  assert.deepEqual(
    apps.map((a) => [
      a.metadata.name,
      a.metadata.annotations?.[ANNOTATION.runtimeUID],
      a.metadata.annotations?.[ANNOTATION.orphanedFrom],
    ]),
    [
      ['alpha', uid, undefined],
      ['bravo', uid, undefined],
      ['charlie', uid, undefined],
    ],
  );
  const rebuilt = applicationsToReleases(apps);
  assert.ok(rebuilt.ok, 'the Applications rebuild into a release set');
  assert.equal(
    `aicr-plan-${planDigest(rebuilt.releases).replace('sha256:', '').slice(0, 16)}`,
    plan,
    'the same plan a next runtime can adopt',
  );
  await assertNoApplicationWrite(mark);
});

test('FIN-3 deletionPolicy Delete creates a removal rollout that writes nothing until approved nor while paused, then removes the releases in reverse order and lets the runtime go', async () => {
  const { uid } = await installed({ deletionPolicy: 'Delete' });
  const mark = auditMark();
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  const waiting = await released(
    'the removal waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('removal of every release'),
  );
  await stalledOn('AwaitingApproval');
  const removal = (await rolloutsOf(uid)).find((r) => r.spec.type === 'Remove');
  assert.ok(removal, waiting.message);
  assert.deepEqual(
    removal.spec.steps.map((s) => `${s.action} ${s.release}`),
    ['Remove charlie', 'Remove bravo', 'Remove alpha'],
  );
  await assertNoApplicationWrite(mark);
  // Paused, an approved removal holds before its first step.
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  await approve(removal.metadata.name);
  await released(
    'the approved removal holds while paused',
    (reason, message) =>
      reason === 'RolloutProgressing' &&
      message.includes('holds at step 1 of 3, Remove charlie: the runtime is paused'),
  );
  await assertNoApplicationWrite(mark);
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":false}}');
  await gone();
  assert.deepEqual(await applications(), []);
  await settleAudit();
  const deletes = rolloutStepWrites(auditSince(mark), 'applications')
    .filter((e) => e.verb === 'delete')
    .map((e) => e.objectRef?.name);
  assert.deepEqual([...new Set(deletes)], ['charlie', 'bravo', 'alpha'], 'removed in reverse deployment order');
});

const suspendEngine = (on: boolean) =>
  kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { suspendEngine: on } }),
  );

/** The rollout step's writes that remove a release: Argo CD's resources finalizer put on an Application, or its deletion. */
function removals(events: readonly AuditEvent[]): string[] {
  const finalizes = (e: AuditEvent): boolean =>
    JSON.stringify(fieldAt(e.requestObject, 'metadata.finalizers') ?? []).includes(ARGOCD.resourcesFinalizer);
  return rolloutStepWrites(events, 'applications')
    .filter((e) => e.verb === 'delete' || finalizes(e))
    .map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`);
}

test('FIN-3 while the engine is suspended a removal does not start: unapproved it expires to RemovalFailed with the finalizer kept; retried and approved it holds until the stop ends, then removes every release', async () => {
  const { uid } = await installed({ deletionPolicy: 'Delete', approvalTimeout: '30s' });
  await suspendEngine(true);
  await waitFor(
    'EngineSuspended',
    async () =>
      (await getRuntime())?.status?.conditions?.some(
        (c) => c.type === CONDITION.engineAvailable && c.reason === 'EngineSuspended',
      )
        ? true
        : undefined,
    30_000,
  );
  const mark = auditMark();
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  const waiting = await released(
    'the removal waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('removal of every release'),
  );
  const first = /rollout (aicr-removal-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
  const failed = await released(
    'RemovalFailed at the approval deadline',
    (reason) => reason === 'RemovalFailed',
    60_000,
  );
  assert.match(
    failed.message,
    new RegExp(`^rollout ${first} \\(.*\\) expired at .* without an approval; nothing was written to Argo CD`),
  );
  assert.match(
    failed.message,
    new RegExp(
      `keeps its cleanup finalizer until the removal succeeds: fix the cause, then kubectl aicr retry ${first}$`,
    ),
  );
  assert.ok((await getRuntime())?.metadata.finalizers?.includes(FINALIZER.cleanup), 'the finalizer is kept');
  assert.equal((await rolloutsOf(uid)).find((r) => r.metadata.name === first)?.status?.outcome, 'Expired');
  // The stop's own stall comes first in the summary; once it ends, RemovalFailed is what stalls the runtime.
  await stalledOn('EngineSuspended');
  await suspendEngine(false);
  await stalledOn('RemovalFailed');
  await settleAudit();
  assert.deepEqual(removals(auditSince(mark)), [], 'an expired removal removes nothing');
  await suspendEngine(true);
  await waitFor(
    'EngineSuspended again',
    async () =>
      (await getRuntime())?.status?.conditions?.some(
        (c) => c.type === CONDITION.engineAvailable && c.reason === 'EngineSuspended',
      )
        ? true
        : undefined,
    30_000,
  );
  const retried = await kubectlAicr(['retry', first], 'alice');
  assert.equal(retried.code, 0, retried.stderr);
  const again = await released(
    'a new removal waits for approval',
    (reason, message) =>
      reason === 'AwaitingApproval' && message.includes('removal of every release') && !message.includes(first),
  );
  await approve(/rollout (aicr-removal-[0-9a-z-]+)/.exec(again.message)?.[1] ?? '');
  await released(
    'the approved removal holds while the engine is suspended',
    (reason, message) =>
      reason === 'RolloutProgressing' &&
      message.includes(
        'holds at step 1 of 3, Remove charlie: nothing is written to Argo CD while it is unavailable: spec.suspendEngine is true',
      ),
  );
  await new Promise((r) => setTimeout(r, 2_000));
  await settleAudit();
  assert.deepEqual(removals(auditSince(mark)), [], 'no release is removed while the engine is suspended');
  assert.equal((await applications()).length, 3);
  await suspendEngine(false);
  await gone();
  assert.deepEqual(await applications(), []);
});

test('FIN-5 a Remove step that cannot finish fails at actionTimeout; the runtime stays with RemovalFailed and its finalizer until a retry succeeds', async () => {
  // Installed with room to spare; the removal gets a timeout short enough to fail soon.
  await installed({ deletionPolicy: 'Delete' });
  await setActionTimeout(FAILING_SOON);
  // Something else holds charlie: Argo CD deletes its resources, but the Application stays.
  await kubectl(
    '-n',
    NAMESPACES.argocd,
    'patch',
    'applications.argoproj.io',
    'charlie',
    '--type',
    'merge',
    '-p',
    '{"metadata":{"finalizers":["example.com/hold"]}}',
  );
  await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
  const waiting = await released(
    'the removal waits for approval',
    (reason, message) => reason === 'AwaitingApproval' && message.includes('removal of every release'),
  );
  const first = /rollout (aicr-removal-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
  await approve(first);
  const failed = await released('RemovalFailed', (reason) => reason === 'RemovalFailed', 60_000);
  assert.match(failed.message, /step 1 \(Remove charlie\) did not finish within actionTimeout/);
  assert.match(failed.message, new RegExp(`kubectl aicr retry ${first}`));
  await stalledOn('RemovalFailed');
  assert.ok((await getRuntime())?.metadata.finalizers?.includes(FINALIZER.cleanup), 'the finalizer is kept');
  await kubectl(
    '-n',
    NAMESPACES.argocd,
    'patch',
    'applications.argoproj.io',
    'charlie',
    '--type',
    'json',
    '-p',
    '[{"op":"remove","path":"/metadata/finalizers/0"}]',
  );
  const retried = await kubectlAicr(['retry', first], 'alice');
  assert.equal(retried.code, 0, retried.stderr);
  const again = await released(
    'a new removal waits for approval',
    (reason, message) =>
      reason === 'AwaitingApproval' && message.includes('removal of every release') && !message.includes(first),
  );
  await approve(/rollout (aicr-removal-[0-9a-z-]+)/.exec(again.message)?.[1] ?? '');
  await gone();
  assert.deepEqual(await applications(), []);
});

// FLT-1, ownership and drift repair under crashes: the control plane runs in processes the fault
// harness kills (SIGKILL) right after seeded writes, handling a share of messages twice
// (test/helpers/faults/processes.ts). First a runtime deleted with the default deletionPolicy
// Orphan while a rollout is in flight: its Applications are marked orphaned and kept as they
// were, the rollout ends Orphaned. A new runtime finds them and stalls, writing nothing; named
// as the runbook says, it adopts them through one Adopt rollout that writes nothing before its
// approval and changes only the ownership marks, then rolls forward to its own plan. Last, the
// drift check's repairs: an owned Application and the active plan deleted between rollouts are
// written back, with no rollout and nothing else written. Checked from the API server's audit
// log and the objects.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND, type GenericObject } from '../../shared/kube/kinds.ts';
import { readPlanConfigMap } from '../../shared/plans/store.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { appReaches, deleteApp } from '../helpers/argocd.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { testConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { CONTROL_PLANE_USER } from '../../harness/env.ts';
import { CALM, SEED, type Start, crashUntil, seeded } from '../helpers/faults/processes.ts';
import { assertEndState, assertHistory, rolloutUnderFaults } from '../helpers/faults/rolloutUnderFaults.ts';
import { holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearApplications,
  clearRolloutStage,
  installedRuntime,
  rolloutsOf,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, deleteRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const NAMES = ['fo-a', 'fo-b', 'fo-c'];
const SPEC = {
  aicrVersion: 'v0.11.1',
  criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
  actionTimeout: '5m',
  validation: { deployment: 'Disabled' },
};
const at = (version: string): Release[] => NAMES.map((n, i) => chartRelease(n, i, version));
const rng = seeded(SEED + 2);
const starts: Start[] = [];
let successorUID = '';
let planB = '';

before(async () => {
  await clearRolloutStage({ configuration: { ...testConfiguration(), drift: { checkInterval: '2s' } } });
  for (const n of NAMES) for (const version of ['1.0.0', '1.1.0']) await pushChart(n, version);
});

after(async () => {
  console.log(
    `seed ${SEED + 2}, ownership: ${starts.length} starts, ${starts.filter((s) => s.crash).length} crashes, ${starts.reduce((n, s) => n + s.duplicates, 0)} messages handled twice`,
  );
  if (process.env['KEEP']) return;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
});

async function applications(): Promise<GenericObject[]> {
  return (await stepKube('rollout').list(KIND.application, { namespace: NAMESPACES.argocd })).items
    .filter((a) => NAMES.includes(a.metadata.name))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

const specOf = (a: GenericObject): unknown => (a as { spec?: unknown }).spec;
const marks = (a: GenericObject): [string | undefined, string | undefined] => [
  a.metadata.annotations?.[ANNOTATION.runtimeUID],
  a.metadata.annotations?.[ANNOTATION.orphanedFrom],
];
const ok = (e: AuditEvent): boolean => (e.responseStatus?.code ?? 0) < 300;
const controlPlaneAppWrites = (
  events: readonly AuditEvent[],
  verbs = ['create', 'update', 'patch', 'delete'],
): string[] =>
  events
    .filter(
      (e) =>
        e.user.username === CONTROL_PLANE_USER &&
        e.objectRef?.resource === 'applications' &&
        verbs.includes(e.verb) &&
        ok(e),
    )
    .map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`);
const received = (e: AuditEvent): number =>
  Date.parse((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp ?? '');
const completed = (e: AuditEvent): number => Date.parse((e as { stageTimestamp?: string }).stageTimestamp ?? '');
/** The messages of the Events with `reason` about the runtime whose UID is `uid`. */
const eventMessages = (reason: string, uid: string): Promise<string> =>
  kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `reason=${reason},involvedObject.uid=${uid}`,
    '-o',
    'jsonpath={.items[*].message}',
  );
const releasedReason = async (): Promise<{ reason: string; message: string } | undefined> =>
  condition(await getRuntime(), CONDITION.released);

test('FLT-1 ADO-1 ADO-3 a runtime deleted with deletionPolicy Orphan mid-rollout under crashes keeps its Applications as they were, marked orphaned, and ends the rollout Orphaned; a new runtime stalls on them writing nothing, then adopts them through one approved Adopt rollout and rolls forward', async () => {
  const cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout'),
  });
  const old = await installedRuntime(SPEC, at('1.0.0'));
  planB = (await storePlan(old.uid, at('1.1.0'))).name;
  // Deleted mid-rollout (fo-b in flight), with the control plane crashing throughout.
  const {
    before,
    inFlight,
    mark: deleted,
  } = await withKnob(holdReleasePods(['ns-fo-b']), async () => {
    await target(planB);
    const waiting = await awaitingRollout(planB);
    await approve(waiting.metadata.name);
    await waitFor(
      'fo-b in flight',
      async () =>
        (await rolloutsOf(old.uid)).find((r) => r.metadata.name === waiting.metadata.name)?.status?.steps?.[1]
          ?.state === 'InProgress'
          ? true
          : undefined,
      60_000,
    );
    cp.stop();
    await cp.running;
    const apps = await applications();
    const at = auditMark();
    await kubectl('delete', 'clusterruntime', 'cluster', '--wait=false');
    await crashUntil('the orphaned runtime gone', async () => (await getRuntime()) === undefined, rng, {
      starts,
      busy: CALM,
    });
    return { before: apps, inFlight: waiting, mark: at };
  });
  let mark = deleted;
  await appReaches(
    'fo-b',
    'healthy at 1.1.0 once its Pods may start',
    (a) => a?.status?.health?.status === 'Healthy' && a.status.sync?.status === 'Synced',
    60_000,
  );
  await settleAudit();
  assert.deepEqual(
    controlPlaneAppWrites(auditSince(mark)).filter((w) => !w.startsWith('patch')),
    [],
    'the Orphan policy only marks Applications',
  );
  const orphaned = await applications();
  assert.deepEqual(
    orphaned.map(marks),
    NAMES.map(() => [old.uid, old.uid]),
    'every Application keeps its runtime and is marked orphaned from it',
  );
  assert.deepEqual(orphaned.map(specOf), before.map(specOf), 'nothing but the marks changed');
  // Rollouts are owned by their runtime and go with it; the Events say how they ended.
  const told = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    'reason=RuntimeOrphaned',
    '-o',
    'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
  );
  assert.match(
    told,
    new RegExp(`rollout ${inFlight.metadata.name} \\(.*\\) ended Orphaned`),
    'the unfinished rollout ended Orphaned',
  );
  assert.match(
    told,
    new RegExp(
      `ClusterRuntime cluster was deleted with deletionPolicy Orphan: 3 Applications \\(${NAMES.join(', ')}\\) keep running, marked operator.aicr.run/orphaned-from=${old.uid}`,
    ),
  );

  // A new runtime with its own plan: it finds them, stalls, and writes nothing.
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, old.plan, planB, '--ignore-not-found');
  mark = auditMark();
  successorUID = (await createRuntime(SPEC)).metadata.uid;
  planB = (await storePlan(successorUID, at('1.1.0'))).name;
  await target(planB);
  await crashUntil(
    'OrphanedObjectsPresent',
    async () => (await releasedReason())?.reason === 'OrphanedObjectsPresent',
    rng,
    { starts, busy: CALM },
  );
  assert.match((await releasedReason())?.message ?? '', new RegExp(`runtime ${old.uid}: ${NAMES.join(', ')}`));
  assert.deepEqual(await rolloutsOf(successorUID), [], 'no rollout is made');

  // Named as the runbook says: one Adopt rollout, nothing written before its approval.
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { adoption: { runtimeUID: old.uid } } }),
  );
  const asked = async (): Promise<boolean> =>
    (await rolloutsOf(successorUID)).some((r) => r.spec.type === 'Adopt') &&
    (await releasedReason())?.reason === 'AwaitingApproval';
  await crashUntil('the adoption awaiting approval', asked, rng, { starts, busy: CALM });
  const adopts = (await rolloutsOf(successorUID)).filter((r) => r.spec.type === 'Adopt');
  assert.equal(
    adopts.length,
    1,
    `one Adopt rollout, however often its creation was cut short: ${adopts.map((r) => r.metadata.name).join(', ')}`,
  );
  const adopt = adopts[0];
  assert.ok(adopt);
  assert.match(
    await kubectl(
      'get',
      'events',
      '-n',
      NAMESPACES.events,
      '--field-selector',
      `involvedObject.name=${adopt.metadata.name}`,
      '-o',
      'jsonpath={.items[*].message}',
    ),
    /adoption of 3 Applications as plan aicr-plan-[0-9a-f]+: they were written by 2 plans/,
  );
  const approving = approve(adopt.metadata.name);
  const adopted = async (): Promise<boolean> =>
    (await rolloutsOf(successorUID)).find((r) => r.metadata.name === adopt.metadata.name)?.status?.outcome ===
    'Succeeded';
  await crashUntil('the adoption Succeeded', adopted, rng, { starts, busy: CALM });
  await approving;
  await settleAudit();
  const events = auditSince(mark);
  const approval = events.find(
    (e) =>
      e.impersonatedUser?.username === 'alice' &&
      e.objectRef?.resource === 'runtimerollouts' &&
      e.objectRef.name === adopt.metadata.name &&
      e.verb === 'patch' &&
      ok(e),
  );
  assert.ok(approval, 'the approval is in the audit log');
  assert.deepEqual(
    controlPlaneAppWrites(events.filter((e) => received(e) <= completed(approval))),
    [],
    "no Application written before the adoption's approval",
  );
  const after = await applications();
  assert.deepEqual(
    after.map(marks),
    NAMES.map(() => [successorUID, undefined]),
    "adopted: the new runtime's, no longer marked orphaned",
  );
  assert.deepEqual(after.map(specOf), before.map(specOf), 'the adoption changed only the ownership marks');

  // Then forward to its own plan, as usual, under the same crashes.
  mark = auditMark();
  const done = await rolloutUnderFaults(successorUID, planB, rng);
  assert.deepEqual(
    done.spec.steps.map((s) => `${s.action} ${s.release} ${s.verdict ?? ''}`),
    ['Upgrade fo-c unknown'],
    'only the release the orphaned rollout had not reached; unknown, as a rebuilt plan has no recipe',
  );
  await settleAudit();
  assertHistory(auditSince(mark), done);
  await assertEndState(successorUID, planB, done, new Map(NAMES.map((n) => [n, '1.1.0'])));
});

test('FLT-1 ROL-8 PLAN-4 the drift check under crashes writes a deleted Application back, then the lost active plan, creates no rollout and writes nothing else', async () => {
  assert.ok(successorUID && planB, 'the runtime the adoption left, Released on its plan');
  const rollouts = (await rolloutsOf(successorUID)).length;
  const mark = auditMark();
  const consistent = async (): Promise<boolean> =>
    condition(await getRuntime(), CONDITION.inventoryConsistent)?.status === 'True';
  const drift = { starts, busy: CALM, steps: ['rollout', 'drift-check'] };
  // One loss at a time: both at once cannot be repaired (the Applications left rebuild to another
  // plan), and the runtime stalls with PlanMissing for a person, as the runbook says.
  await deleteApp('fo-b');
  const first = starts.length;
  // A repair is done once its Event is recorded too, or once the process that sent the repair was
  // killed before the Event: stopping the process as soon as the object is back could cut the
  // Event off. The kill may follow another write than the repair's: the rollout step runs beside
  // the drift check in the same process, and may be answered while the repair is still on its way.
  const lostWith = (written: string): boolean =>
    starts.slice(first).some((st) => st.crash !== undefined && st.sent.some((w) => w.endsWith(written)));
  const told = async (reason: string, written: string): Promise<boolean> =>
    (await eventMessages(reason, successorUID)) !== '' || lostWith(written);
  const appBack = async (): Promise<boolean> =>
    (await applications()).some((a) => a.metadata.name === 'fo-b' && !a.metadata.deletionTimestamp) &&
    (await consistent()) &&
    (await told('ApplicationRecreated', 'applications/fo-b'));
  await crashUntil('fo-b written back', appBack, rng, drift);
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, planB);
  const planBack = async (): Promise<boolean> =>
    (await stepKube('rollout').get(KIND.configMap, planB, NAMESPACES.system)) !== undefined &&
    (await consistent()) &&
    (await told('PlanRebuilt', `configmaps/${planB}`));
  await crashUntil('the active plan written back', planBack, rng, drift);
  const crashes = starts.slice(first).flatMap((st) => (st.crash ? [st.crash] : []));
  console.log(`drift repairs: ${crashes.length} crashes, after: ${crashes.join('; ')}`);
  const back = (await applications()).find((a) => a.metadata.name === 'fo-b');
  assert.deepEqual(
    back && [...marks(back), back.metadata.annotations?.[ANNOTATION.chartVersion]],
    [successorUID, undefined, '1.1.0'],
    'written again from the active plan, owned by the runtime',
  );
  const cm = await stepKube('rollout').get(KIND.configMap, planB, NAMESPACES.system);
  assert.ok(cm, 'the active plan is back');
  const read = readPlanConfigMap(cm);
  assert.ok(
    read.ok && read.plan.recipe === undefined && read.plan.runtimeUID === successorUID,
    'the active plan rebuilt to the same digest, without a recipe',
  );
  // Events are best-effort, as Kubernetes' own are: a process killed right after a repair and
  // before its Event loses the Event, never the repair.
  for (const [reason, told, written] of [
    ['ApplicationRecreated', /Application argocd\/fo-b was deleted outside a rollout/, 'applications/fo-b'],
    ['PlanRebuilt', new RegExp(`the active plan ${planB} was missing`), `configmaps/${planB}`],
  ] as const) {
    const messages = await eventMessages(reason, successorUID);
    if (lostWith(written))
      console.log(`the process that sent ${written} was killed after it; ${reason}: ${messages || 'none'}`);
    else assert.match(messages, told, `${reason} recorded`);
  }
  await settleAudit();
  const events = auditSince(mark);
  const plans = [
    ...new Set(
      events
        .filter(
          (e) =>
            e.user.username === CONTROL_PLANE_USER &&
            e.objectRef?.resource === 'configmaps' &&
            ['create', 'update', 'patch'].includes(e.verb) &&
            ok(e),
        )
        .map((e) => `${e.verb} ${e.objectRef?.name ?? ''}`),
    ),
  ];
  assert.deepEqual(plans, [`create ${planB}`], 'the lost plan created, no plan changed');
  const apps = [...new Set(controlPlaneAppWrites(events))];
  assert.ok(apps.length > 0 && apps.every((w) => w.endsWith(' fo-b')), `only fo-b written: ${apps.join(', ')}`);
  assert.equal((await rolloutsOf(successorUID)).length, rollouts, 'no rollout was created for the repairs');
  assert.equal(condition(await getRuntime(), CONDITION.released)?.status, 'True');
});

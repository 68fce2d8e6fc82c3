// Approved rollouts reaching Argo CD on the test cluster, with Argo CD's own application controller
// reporting on the Applications: releases written one at a time in plan order, each after
// Argo CD reported the previous one synced and healthy at its target version (the API server's
// audit log shows the order); a report at an older version holds the next step; an Argo CD that
// never syncs fails the step at actionTimeout; a pause holds it and may fail it on resume;
// manual releases wait for an acknowledgement; nothing is written while Argo CD's controller is
// down; a removal goes through Argo CD's resources finalizer. Only the rollout step runs: each
// test settles resolution on the plan it wants (rolloutStage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD, CONDITION, NAMESPACES } from '../../shared/api/constants.ts';
import { EVENT_REASON } from '../../shared/events/recorder.ts';
import { fieldAt } from '../../shared/kube/fieldPath.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { Release } from '../../shared/plans/release.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { forgeRolloutSpec } from '../helpers/forgedRollout.ts';
import { stopArgoCd, holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearRolloutStage,
  released,
  stopAndClear,
  rollout,
  rolloutsOf,
  stalledOn,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
const ARGOCD_CONTROLLER = 'system:serviceaccount:argocd:argocd-application-controller';
let cp: ReturnType<typeof startCapturedControlPlane>;
let runtimeUID = '';
/** Where this file's requests start in the audit log: files before it wrote Applications too. */
let fileMark = 0;

const v1 = (): Release[] => [
  chartRelease('alpha', 0, '1.0.0'),
  chartRelease('bravo', 1, '1.0.0'),
  chartRelease('charlie', 2, '1.0.0'),
];

/** Moves the runtime to a plan of these releases and approves the rollout; returns the plan and rollout names. */
async function rollTo(releases: Release[]): Promise<{ plan: string; rollout: string }> {
  const { name } = await storePlan(runtimeUID, releases);
  await target(name);
  const r = await awaitingRollout(name);
  await approve(r.metadata.name);
  return { plan: name, rollout: r.metadata.name };
}

const activeIs = (plan: string) =>
  released(`Released=True on ${plan}`, (reason, message) => reason === 'Released' && message.includes(plan), 60_000);

function ourWrites(events: readonly AuditEvent[]): AuditEvent[] {
  return events.filter(
    (e) =>
      e.impersonatedUser?.username === 'aicr-step-rollout' &&
      e.objectRef?.resource === 'applications' &&
      ['create', 'update', 'patch', 'delete'].includes(e.verb) &&
      (e.responseStatus?.code ?? 0) < 300,
  );
}

/** Where in the audit log each Application was first written by the rollout step. */
function firstWrites(events: readonly AuditEvent[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const e of ourWrites(events)) {
    const name = e.objectRef?.name ?? '';
    if (e.verb === 'patch' && !first.has(name)) first.set(name, events.indexOf(e));
  }
  return first;
}

function argoCdReported(events: readonly AuditEvent[], name: string): boolean {
  return events.some(
    (e) => e.user.username === ARGOCD_CONTROLLER && e.objectRef?.name === name && ['patch', 'update'].includes(e.verb),
  );
}

before(async () => {
  await clearRolloutStage();
  fileMark = auditMark();
  for (const name of ['alpha', 'bravo', 'charlie'])
    for (const version of ['1.0.0', '1.1.0']) await pushChart(name, version);
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
  if (process.env['DEBUG_ROLLOUTS'])
    for (const r of cp.records()) if (r['level'] !== 'DEBUG') console.error(JSON.stringify(r).slice(0, 600));
  await stopAndClear(cp);
});

test('ENG-1 EngineAvailable says whether Argo CD can take writes; while its controller is down an approved rollout writes nothing, and it resumes by itself when the controller returns', async () => {
  await waitFor(
    'EngineAvailable=True',
    async () => (condition(await getRuntime(), CONDITION.engineAvailable)?.status === 'True' ? true : undefined),
    30_000,
  );
  const mark = auditMark();
  await withKnob(stopArgoCd(), async () => {
    const down = await waitFor(
      'EngineAvailable=False',
      async () => {
        const c = condition(await getRuntime(), CONDITION.engineAvailable);
        return c?.status === 'False' ? c : undefined;
      },
      30_000,
    );
    assert.equal(down.reason, 'EngineUnavailable');
    assert.match(
      down.message,
      /application controller is down: StatefulSet argocd-application-controller has \d+ ready of 0\b/,
    );
    const { rollout: name } = await rollTo(v1());
    const held = await released(
      'held while Argo CD is down',
      (reason, message) =>
        reason === 'RolloutProgressing' && message.includes('nothing is written to Argo CD while it is unavailable'),
    );
    assert.match(held.message, new RegExp(`rollout ${name} .* holds at step 1 of 3, Install alpha`));
    await settleAudit();
    assert.deepEqual(
      ourWrites(auditSince(mark)).map((e) => e.objectRef?.name),
      [],
      'nothing was written to Argo CD',
    );
  });
  await activeIs((await rolloutsOf(runtimeUID)).at(-1)?.spec.toPlan ?? '');
  assert.equal(condition(await getRuntime(), CONDITION.engineAvailable)?.reason, 'EngineReady');
});

test('ROL-1 releases are written in plan order, each only after Argo CD reported the previous one synced and healthy at its target version; the owned Applications carry the ownership marks', async () => {
  await settleAudit();
  const events = auditSince(fileMark);
  const first = firstWrites(events);
  assert.deepEqual([...first.keys()], ['alpha', 'bravo', 'charlie'], 'written in plan order');
  const at = [...first.values()];
  for (const [i, name] of ['alpha', 'bravo'].entries()) {
    assert.ok(
      argoCdReported(events.slice(at[i], at[i + 1]), name),
      `Argo CD reported on ${name} before the next release was written`,
    );
  }
  const app = await stepKube('rollout').get(KIND.application, 'bravo', NAMESPACES.argocd);
  assert.ok(app);
  const { labels = {}, annotations = {} } = app.metadata;
  assert.equal(labels['app.kubernetes.io/managed-by'], 'aicr-operator');
  assert.equal(annotations[ANNOTATION.runtimeUID], runtimeUID);
  assert.match(annotations[ANNOTATION.planDigest] ?? '', /^sha256:/);
  assert.equal(app.metadata.finalizers, undefined, 'no resources finalizer outside a Remove step');
  const done = (await rolloutsOf(runtimeUID)).at(-1);
  assert.ok(done);
  assert.equal(done.status?.outcome, 'Succeeded');
  assert.deepEqual(
    done.status?.steps?.map((s) => s.state),
    ['Succeeded', 'Succeeded', 'Succeeded'],
  );
  const events2 = await kubectl(
    'get',
    'events',
    '-n',
    NAMESPACES.events,
    '--field-selector',
    `involvedObject.name=${done.metadata.name}`,
    '-o',
    'jsonpath={.items[*].reason}',
  );
  assert.match(events2, new RegExp(EVENT_REASON.rolloutSucceeded));
});

test('ROL-1 a release Argo CD synced but reports Progressing (its new Pods do not start) holds the next step; kubectl aicr describe shows the step in flight and why', async () => {
  const mark = auditMark();
  await withKnob(holdReleasePods(['ns-bravo']), async () => {
    const { rollout: name } = await rollTo([
      chartRelease('alpha', 0, '1.0.0'),
      chartRelease('bravo', 1, '1.1.0'),
      chartRelease('charlie', 2, '1.1.0'),
    ]);
    const waiting = await released(
      'waiting on bravo',
      (reason, message) =>
        reason === 'RolloutProgressing' && /Upgrade bravo: Argo CD reports Application bravo Progressing/.test(message),
    );
    assert.match(waiting.message, /Progressing/);
    const shown = await kubectlAicr(['describe', name]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /In flight: .*bravo/);
    assert.match(shown.stdout, /Progressing/);
    await settleAudit();
    assert.deepEqual(
      [...new Set(ourWrites(auditSince(mark)).map((e) => e.objectRef?.name))],
      ['bravo'],
      'charlie waits for bravo',
    );
  });
  const finished = await activeIs((await rolloutsOf(runtimeUID)).at(-1)?.spec.toPlan ?? '');
  assert.match(finished.message, /succeeded/);
});

test('ROL-7 an Argo CD that never syncs fails the step at actionTimeout; a step in flight while the runtime is paused is held and fails on resume once past actionTimeout', async () => {
  // The shortest actionTimeout there is, so the test waits past it in seconds.
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"actionTimeout":"10s"}}');
  await withKnob(holdReleasePods(['ns-charlie']), async () => {
    const { rollout: name } = await rollTo([
      chartRelease('alpha', 0, '1.0.0'),
      chartRelease('bravo', 1, '1.0.0'),
      chartRelease('charlie', 2, '1.0.0', { values: { rol7: true } }),
    ]);
    await released(
      'charlie in flight',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('Upgrade charlie'),
    );
    await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
    const held = await released(
      'held by the pause',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('paused'),
    );
    assert.match(held.message, /step 2 of 2, Upgrade charlie/);
    // Past actionTimeout while paused: only time can get there.
    await new Promise((r) => setTimeout(r, 11_000));
    assert.equal((await rollout(name)).status?.outcome, undefined, 'not failed while paused');
    await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":false}}');
    const failed = await released('RolloutFailed on resume', (reason) => reason === 'RolloutFailed', 30_000);
    assert.match(failed.message, /step 2 \(Upgrade charlie\) did not finish within actionTimeout/);
    assert.match(failed.message, /Releases it already moved stay at plan/);
    const r = await rollout(name);
    assert.equal(r.status?.outcome, 'Failed');
    assert.deepEqual(
      r.status?.steps?.map((s) => s.state),
      ['Succeeded', 'Failed'],
    );
    const events = await kubectl(
      'get',
      'events',
      '-n',
      NAMESPACES.events,
      '--field-selector',
      `involvedObject.name=${name}`,
      '-o',
      'jsonpath={.items[*].reason}',
    );
    assert.match(events, new RegExp(EVENT_REASON.rolloutFailed));
    await stalledOn('RolloutFailed');
  });
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"actionTimeout":"60s"}}');
});

test('APR-3 a manual release with recorded steps stops at AwaitingAcknowledgement after it is healthy; describe lists the recorded steps; kubectl aicr acknowledge continues; nothing further starts before', async () => {
  const steps = ['cordon and drain the GPU nodes one at a time', 'run the fabric manager check'];
  const releases = [
    chartRelease('alpha', 0, '1.1.0', { manual: true, steps }),
    chartRelease('bravo', 1, '1.1.0'),
    chartRelease('charlie', 2, '1.1.0'),
  ];
  const mark = auditMark();
  const { rollout: name, plan } = await rollTo(releases);
  const waiting = await released('AwaitingAcknowledgement', (reason) => reason === 'AwaitingAcknowledgement');
  assert.match(waiting.message, new RegExp(`kubectl aicr acknowledge ${name}`));
  await stalledOn('AwaitingAcknowledgement');
  const shown = await kubectlAicr(['describe', name]);
  assert.match(shown.stdout, /Recorded steps:/);
  for (const s of steps) assert.ok(shown.stdout.includes(s), `describe lists "${s}"`);
  await settleAudit();
  assert.deepEqual(
    [...new Set(ourWrites(auditSince(mark)).map((e) => e.objectRef?.name))],
    ['alpha'],
    'nothing further was written',
  );
  const ack = await kubectlAicr(['acknowledge', name], 'alice');
  assert.equal(ack.code, 0, ack.stderr);
  await activeIs(plan);
  assert.deepEqual(
    (await rollout(name)).spec.acknowledgements?.map((a) => [a.release, a.acknowledgedBy]),
    [['alpha', 'alice']],
  );
});

test('ROL-4 a step naming a release the target plan lacks stalls the rollout with StepUnknown and writes nothing for it', async () => {
  const { name: plan } = await storePlan(runtimeUID, [
    chartRelease('alpha', 0, '1.0.0', { values: { rol4: true } }),
    chartRelease('bravo', 1, '1.1.0'),
    chartRelease('charlie', 2, '1.1.0'),
  ]);
  await target(plan);
  const r = await awaitingRollout(plan);
  // A step for a release the plan does not have, as a rollout from an older control plane could hold.
  const ghost = { release: 'ghost', action: 'Install', verdict: 'unknown' };
  await forgeRolloutSpec(r.metadata.name, { steps: [ghost, ...r.spec.steps] });
  const mark = auditMark();
  await approve(r.metadata.name);
  const unknown = await released('StepUnknown', (reason) => reason === 'StepUnknown');
  assert.match(
    unknown.message,
    /step 1 of \d+, Install ghost: step 1 names release ghost, which the target plan .* lacks/,
  );
  await stalledOn('StepUnknown');
  assert.equal((await rollout(r.metadata.name)).status?.outcome, undefined, 'stalled, not ended: a retry ends it');
  await settleAudit();
  assert.deepEqual(
    ourWrites(auditSince(mark)).map((e) => e.objectRef?.name),
    [],
  );
});

/** An annotation of a written body; its key holds dots, so it is not a field path. */
function annotationOf(body: unknown, key: string): unknown {
  const annotations = fieldAt(body, 'metadata.annotations');
  return typeof annotations === 'object' && annotations !== null
    ? (annotations as Record<string, unknown>)[key]
    : undefined;
}

test('FIN-4 a Remove step sets the resources finalizer with the delete-rollout annotation, deletes the Application and waits until Argo CD released it', async () => {
  const mark = auditMark();
  const { plan, rollout: name } = await rollTo([chartRelease('alpha', 0, '1.1.0'), chartRelease('bravo', 1, '1.1.0')]);
  await activeIs(plan);
  assert.equal(await stepKube('rollout').get(KIND.application, 'charlie', NAMESPACES.argocd), undefined);
  await settleAudit();
  const writes = ourWrites(auditSince(mark));
  const charlie = writes.filter((e) => e.objectRef?.name === 'charlie');
  assert.deepEqual(
    charlie.map((e) => e.verb),
    ['patch', 'delete'],
  );
  // The patch before the delete is what put Argo CD's finalizer on, with the annotation naming this rollout.
  assert.ok(charlie[0]?.requestObject, 'the audit log keeps the body of Application writes');
  assert.deepEqual(fieldAt(charlie[0]?.requestObject, 'metadata.finalizers'), [ARGOCD.resourcesFinalizer]);
  assert.equal(annotationOf(charlie[0]?.requestObject, ANNOTATION.deleteRollout), name);
  // The releases that stay are written without the finalizer or the annotation.
  const others = writes.filter((e) => e.objectRef?.name !== 'charlie');
  assert.ok(others.length > 0, 'alpha and bravo were written');
  for (const e of others) {
    assert.equal(
      fieldAt(e.requestObject, 'metadata.finalizers'),
      undefined,
      `${e.objectRef?.name ?? ''} gets no finalizer`,
    );
    assert.equal(
      annotationOf(e.requestObject, ANNOTATION.deleteRollout),
      undefined,
      `${e.objectRef?.name ?? ''} gets no delete-rollout annotation`,
    );
  }
  const step = (await rollout(name)).spec.steps.find((s) => s.release === 'charlie');
  assert.equal(step?.action, 'Remove');
});

test('ROL-1 a version bump whose manifests render the same passes its gate: Argo CD compares it Synced at the new version and runs no sync, and the step succeeds without waiting for actionTimeout', async () => {
  // Two versions of one chart whose manifests do not name the version: Argo CD has nothing to sync.
  const [older, newer] = [
    await pushChart('same', '1.0.0', { versionInManifests: false }),
    await pushChart('same', '1.1.0', { versionInManifests: false }),
  ];
  // An earlier run's objects would already match 1.0.0, and Argo CD would then run no sync to record.
  await kubectl('delete', 'namespace', 'ns-same', '--ignore-not-found', '--timeout=120s');
  const kept = [chartRelease('alpha', 0, '1.1.0'), chartRelease('bravo', 1, '1.1.0')];
  await activeIs((await rollTo([...kept, chartRelease('same', 2, '1.0.0')])).plan);
  const { plan, rollout: name } = await rollTo([...kept, chartRelease('same', 2, '1.1.0')]);
  // Had the gate waited for a sync at 1.1.0, the step would fail at actionTimeout (60 s here).
  await activeIs(plan);
  const done = await rollout(name);
  assert.deepEqual(
    done.spec.steps.map((s) => `${s.action} ${s.release}`),
    ['Upgrade same'],
  );
  assert.equal(done.status?.outcome, 'Succeeded');
  const app = await stepKube('rollout').get(KIND.application, 'same', NAMESPACES.argocd);
  assert.deepEqual(
    ['status.sync.status', 'status.sync.revision'].map((f) => fieldAt(app, f)),
    ['Synced', newer],
    'compared Synced at the new version, by its digest (SEC-9)',
  );
  assert.equal(
    fieldAt(app, 'status.operationState.syncResult.revision'),
    older,
    'no sync ran for the bump: the last operation still names the old version',
  );
});

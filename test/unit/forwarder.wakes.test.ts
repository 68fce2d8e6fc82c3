// Which steps a watched change wakes: each step wakes on what it acts on, so a change another
// step made, or a run another step started, costs it no look.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD, FIELD_MANAGER, LABEL } from '../../shared/api/constants.ts';
import {
  APPLICATION_SPEC_WATCH,
  APPLICATION_WATCH,
  RUNTIME_DISCOVERY_WATCH,
  RUNTIME_NOTICE_WATCH,
  RUNTIME_TARGET_WATCH,
  RUNTIME_WATCH,
  PLAN_WATCH,
  SNAPSHOT_CONFIGMAP_WATCH,
  WATCHED,
} from '../../shared/forwarder/watched.ts';
import {
  AICR_JOB_WATCH,
  AICR_POD_WATCH,
  ASSESSMENT_JOB_WATCH,
  ASSESSMENT_POD_WATCH,
} from '../../shared/forwarder/runWatches.ts';
import type { Watchable, WatchedKind } from '../../shared/forwarder/watchedKind.ts';
import type { GenericObject, RuntimeObject } from '../../shared/kube/kinds.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { StepWakes } from '../../shared/forwarder/stepWakes.ts';

const woken = (w: WatchedKind<Watchable>): string[] =>
  STEP_TABLE.filter((r) => (r.wakesOn as readonly string[]).includes(w.wake)).map((r) => r.name);

const runtime = (snapshotDigest: string): RuntimeObject =>
  ({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'ClusterRuntime',
    metadata: { name: 'cluster', uid: 'u-1', resourceVersion: '1', generation: 3 },
    status: { discovery: { snapshot: { configMap: 'aicr-snapshot-1', digest: snapshotDigest } } },
  }) as RuntimeObject;

test('a new snapshot in the runtime status is news to resolve alone, not to every step a spec change wakes', () => {
  const before = runtime('sha256:aaa');
  const after = runtime('sha256:bbb');
  assert.notEqual(
    RUNTIME_DISCOVERY_WATCH.fingerprint(before),
    RUNTIME_DISCOVERY_WATCH.fingerprint(after),
    'the discovery watch sees the new snapshot',
  );
  assert.equal(RUNTIME_WATCH.fingerprint(before), RUNTIME_WATCH.fingerprint(after), 'the spec watch does not');
  assert.deepEqual(woken(RUNTIME_DISCOVERY_WATCH), ['resolve']);
  assert.ok(woken(RUNTIME_WATCH).includes('snapshot'), 'a spec change still wakes discovery');
  assert.equal(RUNTIME_DISCOVERY_WATCH.arrivalIsNews?.(after), false, "a new runtime is the spec watch's news");
});

test("resolution's AICR runs wake resolve and the assessment's wake the rollout, never the other way round", () => {
  for (const w of [AICR_JOB_WATCH, AICR_POD_WATCH]) {
    assert.deepEqual(woken(w), ['resolve'], w.id ?? w.kind.plural);
    assert.equal(w.selection?.labelSelector, `${LABEL.stage} in (recipe,render)`);
  }
  for (const w of [ASSESSMENT_JOB_WATCH, ASSESSMENT_POD_WATCH]) {
    assert.deepEqual(woken(w), ['rollout'], w.id ?? w.kind.plural);
    assert.equal(w.selection?.labelSelector, `${LABEL.stage}=assessment`);
  }
  assert.equal(
    AICR_JOB_WATCH.selection?.namespace,
    ASSESSMENT_JOB_WATCH.selection?.namespace,
    'both stages run in aicr-jobs',
  );
});

const application = (specVersion: string, health: string, comparedVersion?: string): GenericObject =>
  ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'alpha', namespace: 'argocd', uid: 'a-1', resourceVersion: '1' },
    spec: { source: { chart: 'alpha', targetRevision: specVersion } },
    status: {
      sync: {
        status: 'Synced',
        ...(comparedVersion
          ? { comparedTo: { source: { chart: 'alpha', targetRevision: comparedVersion } }, revision: comparedVersion }
          : {}),
      },
      health: { status: health },
      reconciledAt: '2026-12-06T08:00:00Z',
    },
  }) as GenericObject;

/** Whether the move from `before` to `after` wakes the rollout step. */
const news = (before: GenericObject, after: GenericObject): boolean => {
  const [b, a] = [APPLICATION_WATCH.fingerprint(before), APPLICATION_WATCH.fingerprint(after)];
  return b !== a && (APPLICATION_WATCH.changeIsNews?.(b, a) ?? true);
};

test("Argo CD's reports on an owned Application wake the rollout step, not the drift check; an edit or a deletion wakes both", () => {
  const progressing = application('1.0.0', 'Progressing');
  const healthy = application('1.0.0', 'Healthy');
  const edited = application('1.1.0', 'Healthy');
  assert.deepEqual(woken(APPLICATION_WATCH), ['rollout']);
  assert.deepEqual(woken(APPLICATION_SPEC_WATCH), ['drift-check']);
  const settled = application('1.0.0', 'Healthy', '1.0.0');
  const degraded = application('1.0.0', 'Degraded', '1.0.0');
  assert.notEqual(
    APPLICATION_WATCH.fingerprint(progressing),
    APPLICATION_WATCH.fingerprint(settled),
    'settling is news to the rollout',
  );
  assert.notEqual(
    APPLICATION_WATCH.fingerprint(progressing),
    APPLICATION_WATCH.fingerprint(degraded),
    'and so is degrading',
  );
  assert.equal(
    APPLICATION_WATCH.fingerprint(progressing),
    APPLICATION_WATCH.fingerprint(healthy),
    'not Argo CD moving between stages of a sync it has not finished comparing',
  );
  assert.equal(
    APPLICATION_SPEC_WATCH.fingerprint(progressing),
    APPLICATION_SPEC_WATCH.fingerprint(settled),
    'none of it is news to the drift check',
  );
  for (const w of [APPLICATION_WATCH, APPLICATION_SPEC_WATCH]) {
    assert.notEqual(w.fingerprint(healthy), w.fingerprint(edited), `${w.id ?? ''}: an edited spec is news`);
    assert.notEqual(w.deletionIsNews?.(healthy), false, `${w.id ?? ''}: a deletion is news`);
  }
});

test("the rollout step's own write of an Application's spec, not yet compared by Argo CD, does not wake it; a person's edit, Argo CD settling and a deletion do", () => {
  const by = (app: GenericObject, ...managers: string[]): GenericObject =>
    ({
      ...app,
      metadata: {
        ...app.metadata,
        managedFields: managers.map((manager) => ({ manager, operation: 'Apply', fieldsV1: { 'f:spec': {} } })),
      },
    }) as GenericObject;
  const settled = by(application('1.0.0', 'Healthy', '1.0.0'), FIELD_MANAGER.rollout);
  const written = by(application('1.1.0', 'Healthy', '1.0.0'), FIELD_MANAGER.rollout);
  assert.equal(news(settled, written), false, 'the step wrote it and waits for what Argo CD makes of it');
  assert.equal(
    news(written, by(application('1.1.0', 'Healthy', '1.1.0'), FIELD_MANAGER.rollout)),
    true,
    'Argo CD settling at it is news',
  );
  assert.equal(
    news(settled, by(application('1.1.0', 'Healthy', '1.0.0'), FIELD_MANAGER.rollout, 'kubectl-edit')),
    true,
    "a person's edit is news",
  );
  assert.equal(
    news(settled, application('1.1.0', 'Healthy', '1.0.0')),
    true,
    'with no record of who wrote the spec, every spec change is news',
  );
  const deleting = {
    ...written,
    metadata: { ...written.metadata, deletionTimestamp: '2026-12-06T08:00:00Z' },
  } as GenericObject;
  assert.equal(news(settled, deleting), true, 'a deletion with the write is news');
});

test('a refresh the rollout step asks of Argo CD does not wake it; Argo CD answering it does, though its stage reads as before', () => {
  const settled = application('1.0.0', 'Healthy', '1.0.0');
  const asked = {
    ...settled,
    metadata: { ...settled.metadata, annotations: { [ARGOCD.refreshAnnotation]: 'normal' } },
  } as GenericObject;
  assert.equal(news(settled, asked), false, 'the ask alone');
  assert.equal(news(asked, settled), true, "Argo CD's answer");
  const degradedAndAsked = { ...application('1.0.0', 'Degraded', '1.0.0'), metadata: asked.metadata } as GenericObject;
  assert.equal(news(settled, degradedAndAsked), true, 'an ask beside a new stage is news for the stage');
});

test('a runtime gone from the API wakes no step: each would read it only to find it gone; its deletion starting still does', () => {
  const runtimeWatches = WATCHED.filter((w) => w.kind.plural === 'clusterruntimes');
  assert.deepEqual(
    new Set(runtimeWatches),
    new Set([RUNTIME_WATCH, RUNTIME_DISCOVERY_WATCH, RUNTIME_TARGET_WATCH, RUNTIME_NOTICE_WATCH]),
  );
  const live = runtime('sha256:aaa');
  for (const w of runtimeWatches) assert.equal(w.deletionIsNews?.(live), false, `${w.id ?? w.wake}: gone is no news`);
  const deleting = { ...live, metadata: { ...live.metadata, deletionTimestamp: '2026-12-06T00:00:00Z' } };
  assert.notEqual(RUNTIME_WATCH.fingerprint(live), RUNTIME_WATCH.fingerprint(deleting), 'a deletion starting is news');
});

test('resolution running while no target is named wakes neither the rollout step nor the drift check; a new target wakes the rollout step, and the drift check once a plan is active; Resolved settling on it the rollout step alone', () => {
  const wakes = new StepWakes(RUNTIME_TARGET_WATCH as WatchedKind<Watchable>, STEP_TABLE);
  const at = (
    targetPlan: string | undefined,
    resolved: 'True' | 'False' | undefined,
    reason = 'Resolving',
    activePlan = 'aicr-plan-0',
  ): RuntimeObject =>
    ({
      apiVersion: 'operator.aicr.run/v1alpha1',
      kind: 'ClusterRuntime',
      metadata: { name: 'cluster', uid: 'u-1', resourceVersion: '1', generation: 1 },
      status: {
        ...(activePlan ? { activePlan } : {}),
        ...(targetPlan ? { targetPlan } : {}),
        conditions: resolved ? [{ type: 'Resolved', status: resolved, reason, message: '' }] : [],
      },
    }) as RuntimeObject;
  const move = (before: RuntimeObject, after: RuntimeObject): readonly string[] =>
    wakes.wokenBy('MODIFIED', after, wakes.print(before), wakes.print(after));
  assert.deepEqual(wakes.steps, ['rollout', 'drift-check']);
  assert.deepEqual(move(at(undefined, undefined), at(undefined, 'False')), [], 'resolution starting');
  assert.deepEqual(move(at(undefined, 'False'), at(undefined, 'False', 'AICRStageStalled')), [], 'or stalling');
  assert.deepEqual(move(at(undefined, 'False'), at('aicr-plan-a', 'True', 'Resolved')), ['rollout', 'drift-check']);
  assert.deepEqual(move(at('aicr-plan-a', 'True'), at('aicr-plan-a', 'False')), ['rollout'], 'a new resolution');
  assert.deepEqual(move(at('aicr-plan-a', 'False'), at('aicr-plan-a', 'True')), ['rollout'], 'settling again');
  assert.deepEqual(move(at('aicr-plan-a', 'True'), at('aicr-plan-b', 'True')), ['rollout', 'drift-check']);
  // Before any plan is active the drift check has nothing to compare a target against.
  const first = (target: string | undefined, resolved: 'True' | 'False'): RuntimeObject =>
    at(target, resolved, resolved === 'True' ? 'Resolved' : 'Resolving', '');
  assert.deepEqual(move(first(undefined, 'False'), first('aicr-plan-a', 'True')), ['rollout'], 'a first target');
  assert.deepEqual(move(first('aicr-plan-a', 'True'), first('aicr-plan-b', 'True')), ['rollout']);
});

test('a deletion starting wakes only the step that acts on it (the rollout step, which holds the finalizer)', () => {
  const wakes = new StepWakes(RUNTIME_WATCH as WatchedKind<Watchable>, STEP_TABLE);
  const live = runtime('sha256:aaa');
  // The API server moves a custom resource's generation on when its deletion starts.
  const deleting = {
    ...live,
    metadata: { ...live.metadata, generation: 4, deletionTimestamp: '2026-12-06T08:00:00Z' },
  };
  assert.deepEqual(
    STEP_TABLE.filter((r) => 'actsOnDeletion' in r && r.actsOnDeletion).map((r) => r.name),
    ['rollout'],
  );
  assert.deepEqual(wakes.wokenBy('MODIFIED', deleting, wakes.print(live), wakes.print(deleting)), ['rollout']);
});

test('a new runtime with nothing to tell yet does not wake notify, nor one with only a target; one arriving with a Released condition to tell does', () => {
  const bare = runtime('sha256:aaa');
  const targetWith = (releasedReason: string): RuntimeObject =>
    ({
      ...bare,
      status: {
        targetPlan: 'aicr-plan-a',
        conditions: [
          {
            type: 'Released',
            status: 'False',
            reason: releasedReason,
            message: '',
            lastTransitionTime: '2026-12-06T08:00:00Z',
          },
        ],
      },
    }) as RuntimeObject;
  const told = targetWith('AwaitingApproval');
  assert.equal(RUNTIME_NOTICE_WATCH.arrivalIsNews?.(bare), false);
  assert.equal(RUNTIME_NOTICE_WATCH.arrivalIsNews?.(told), true);
  // A target named, or Released waiting for one, tells nothing until a rollout moves Released.
  const targetOnly = targetWith('AwaitingPlan');
  assert.equal(RUNTIME_NOTICE_WATCH.arrivalIsNews?.(targetOnly), false);
  assert.equal(RUNTIME_NOTICE_WATCH.fingerprint(targetOnly), RUNTIME_NOTICE_WATCH.fingerprint(bare));
  assert.notEqual(RUNTIME_NOTICE_WATCH.fingerprint(told), RUNTIME_NOTICE_WATCH.fingerprint(targetOnly));
});

test("a snapshot ConfigMap arriving is the snapshot step's own publication, no news; one edited or deleted is", () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 's', uid: 'c-1', resourceVersion: '1' },
    data: { a: '1' },
  };
  const edited = { ...cm, data: { a: '2' } };
  assert.equal(SNAPSHOT_CONFIGMAP_WATCH.arrivalIsNews?.(cm), false);
  assert.notEqual(SNAPSHOT_CONFIGMAP_WATCH.fingerprint(cm), SNAPSHOT_CONFIGMAP_WATCH.fingerprint(edited));
  assert.notEqual(SNAPSHOT_CONFIGMAP_WATCH.deletionIsNews?.(cm), false);
});

test("a plan written again to record a new runtime is resolution's own write, no news; one relabelled or deleted is", () => {
  const plan = (runtimeUID: string, bundle: string, schema = '1') => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'aicr-plan-0123456789abcdef',
      uid: 'p-1',
      resourceVersion: '1',
      labels: { [LABEL.role]: 'plan', [LABEL.schemaVersion]: schema },
      annotations: { [ANNOTATION.planDigest]: 'sha256:0123', [ANNOTATION.runtimeUID]: runtimeUID },
    },
    data: { inputs: JSON.stringify({ bundle }) },
  });
  const first = plan('u-1', 'bundle@sha256:aa');
  assert.equal(PLAN_WATCH.arrivalIsNews?.(first), false);
  assert.equal(PLAN_WATCH.fingerprint(first), PLAN_WATCH.fingerprint(plan('u-2', 'bundle@sha256:bb')));
  assert.notEqual(PLAN_WATCH.fingerprint(first), PLAN_WATCH.fingerprint(plan('u-1', 'bundle@sha256:aa', '2')));
  assert.notEqual(PLAN_WATCH.deletionIsNews?.(first), false);
});

test('Stalled False appearing or moving is nothing to tell, so it does not wake notify; Stalled turning True does', () => {
  const bare = runtime('sha256:aaa');
  const stalled = (status: 'True' | 'False', reason: string): RuntimeObject =>
    ({
      ...bare,
      status: {
        conditions: [{ type: 'Stalled', status, reason, message: '', lastTransitionTime: '2026-12-06T08:00:00Z' }],
      },
    }) as RuntimeObject;
  const print = RUNTIME_NOTICE_WATCH.fingerprint;
  assert.equal(print(bare), print(stalled('False', 'NotStalled')));
  assert.equal(print(stalled('False', 'NotStalled')), print(stalled('False', 'Other')));
  assert.notEqual(print(bare), print(stalled('True', 'AICRStageStalled')));
});

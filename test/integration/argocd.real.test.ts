// What Argo CD v3.5.1's own application controller and repo-server do with the kind of
// Applications the control plane writes, seen only through the API server, as the control plane
// sees Argo CD. Each test checks one thing the control plane relies on, and that the Argo CD
// stand-in the tests once used assumed (docs/adr/0009-test-cluster.md lists them): what
// comparedTo records, when automated sync runs, real health, the resources finalizer, refresh,
// which credential Secrets the repo-server uses, and a controller scaled to 0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testEnv, uniqueName } from '../../harness/env.ts';
import {
  type Application,
  appReaches,
  createApp,
  deleteApp,
  patchApp,
  readApp,
  readStatefulSet,
  repositorySecret,
} from '../helpers/argocd.ts';
import { holdReleasePods, stopArgoCd, withKnob } from '../helpers/knobs.ts';
import { pushChart } from '../../harness/rolloutStage.ts';
import { kubectl } from '../../harness/runtime.ts';
import { fixtureGroup } from '../../harness/fixtureCharts.ts';
import { gate } from '../../shared/rollout/rules/gate.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import type { PlanApplication } from '../../shared/plans/applications.ts';

const prefix = uniqueName('argocd');
const repoURL = `${testEnv().TESTENV_REGISTRY}/aicr/rollout-charts`;
const cleanups: (() => Promise<void>)[] = [];
const apps: string[] = [];
const namespaces: string[] = [];
const SLOW = 90_000;

before(async () => {
  await pushChart(`${prefix}-demo`, '1.0.0');
  await pushChart(`${prefix}-demo`, '1.1.0');
  await pushChart(`${prefix}-other`, '2.0.0');
  await pushChart(`${prefix}-same`, '1.0.0', { versionInManifests: false });
  await pushChart(`${prefix}-same`, '1.1.0', { versionInManifests: false });
  cleanups.push(await repositorySecret(`${prefix}-repo`, repoURL));
});

after(async () => {
  await Promise.all(apps.map(deleteApp));
  for (const undo of cleanups) await undo();
  // Gone before the next file starts: a namespace half-deleted would look like another test's doing.
  if (namespaces.length > 0)
    await kubectl('delete', 'namespace', ...namespaces, '--ignore-not-found', '--timeout=120s');
});

const automated = {
  automated: { prune: true, selfHeal: true },
  syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
};
const chart = (name: string, version: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  repoURL,
  chart: `${prefix}-${name}`,
  targetRevision: version,
  ...extra,
});

/** An Application deploying into a namespace of its own, with automated sync unless told otherwise. */
async function app(
  tag: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Promise<{ name: string; ns: string; created: Application }> {
  const name = uniqueName(tag);
  const ns = `${name}-ns`;
  apps.push(name);
  namespaces.push(ns);
  const created = await createApp(
    name,
    {
      project: 'default',
      destination: { server: 'https://kubernetes.default.svc', namespace: ns },
      syncPolicy: automated,
      ...spec,
    },
    metadata,
  );
  return { name, ns, created };
}

const sync = (a: Application | undefined) => a?.status?.sync;
const op = (a: Application | undefined) => a?.status?.operationState;
const healthOf = (a: Application | undefined): string | undefined => a?.status?.health?.status;
const comparisonError = (a: Application | undefined) =>
  a?.status?.conditions?.find((c) => c.type === 'ComparisonError');
const revisionsOf = (a: Application | undefined): readonly string[] =>
  sync(a)?.revisions ?? (sync(a)?.revision ? [sync(a)?.revision ?? ''] : []);
const syncedAt =
  (...versions: string[]) =>
  (a: Application | undefined): boolean =>
    sync(a)?.status === 'Synced' &&
    JSON.stringify(revisionsOf(a)) === JSON.stringify(versions) &&
    healthOf(a) === 'Healthy';

async function jsonOf(...args: string[]): Promise<Record<string, unknown>> {
  return JSON.parse(await kubectl(...args, '-o', 'json')) as Record<string, unknown>;
}

async function exists(...args: string[]): Promise<boolean> {
  return (await kubectl('get', ...args, '--ignore-not-found', '-o', 'name')).trim() !== '';
}

test("ADR-0009 automated sync deploys the chart for real: its Deployment runs a Pod, health is Healthy, and comparedTo holds the spec's sources and destination as written", async () => {
  const sources = [
    chart('demo', '1.0.0', {
      name: 'chart',
      helm: { releaseName: 'demo', valuesObject: { fixture: { replicas: 1 } } },
    }),
    chart('other', '2.0.0', { name: 'manifests', helm: { releaseName: 'demo-extra' } }),
  ];
  const { name, ns } = await app('multi', { sources });
  const spec = (await readApp(name))?.spec;
  const intended = { metadata: { name }, spec } as unknown as PlanApplication;
  // The rollout gate is what must read this comparison as the spec's; a first sync may be
  // followed by another (the custom resource applied once its CRD is established).
  const done = await appReaches(
    name,
    'to pass the rollout gate',
    (a) => syncedAt('1.0.0', '2.0.0')(a) && gate(a as unknown as GenericObject, intended, new Date(0)).held,
    SLOW,
  );
  // The sources and destination as written; with several sources Argo CD also records an empty single source.
  assert.deepEqual(
    sync(done)?.comparedTo,
    { source: { repoURL: '' }, sources: spec?.sources, destination: spec?.destination },
    'comparedTo holds the spec verbatim',
  );
  assert.equal(op(done)?.phase, 'Succeeded');
  const deployment = await jsonOf('-n', ns, 'get', 'deployment', 'demo-workload');
  assert.equal((deployment['status'] as { readyReplicas?: number }).readyReplicas, 1, 'the process node runs its Pod');
  assert.ok(
    await exists(`widgets.${fixtureGroup(`${prefix}-demo`)}`, '-n', ns, 'demo'),
    "the custom resource of the chart's CRD is applied",
  );
});

test("ADR-0009 health is the workload's: Progressing while its Pods do not start, Healthy once they run", async () => {
  await withKnob(holdReleasePods([`${prefix}-held-ns`]), async () => {
    const name = `${prefix}-held`;
    apps.push(name);
    namespaces.push(`${name}-ns`);
    await createApp(name, {
      project: 'default',
      destination: { server: 'https://kubernetes.default.svc', namespace: `${name}-ns` },
      syncPolicy: automated,
      sources: [chart('demo', '1.0.0', { name: 'chart' })],
    });
    // Argo CD may compare the app Synced before it records its operation's end, so wait for that end too.
    const ended = (a: Application | undefined): boolean =>
      !['Running', 'Terminating', undefined].includes(op(a)?.phase);
    const progressing = await appReaches(
      name,
      'to be synced but Progressing, its sync ended',
      (a) => sync(a)?.status === 'Synced' && healthOf(a) === 'Progressing' && ended(a),
      SLOW,
    );
    assert.equal(op(progressing)?.phase, 'Succeeded', 'the sync itself succeeded');
  });
  await appReaches(`${prefix}-held`, 'to be Healthy once its Pods run', syncedAt('1.0.0'), SLOW);
});

test('ADR-0009 a version bump whose manifests render the same is Synced at the new version with no new sync: the last operation still names the old one', async () => {
  const { name } = await app('noop', { sources: [chart('same', '1.0.0', { name: 'chart' })] });
  const first = await appReaches(name, 'to be synced at 1.0.0', syncedAt('1.0.0'), SLOW);
  const historyBefore = first?.status?.history?.length ?? 0;
  await patchApp(name, { spec: { sources: [chart('same', '1.1.0', { name: 'chart' })] } });
  const bumped = await appReaches(name, 'to be compared at 1.1.0', syncedAt('1.1.0'), SLOW);
  assert.deepEqual(
    op(bumped)?.syncResult?.revisions,
    ['1.0.0'],
    'automated sync runs only for OutOfSync, so no operation at 1.1.0',
  );
  assert.equal(bumped?.status?.history?.length ?? 0, historyBefore, 'no new history entry');
});

test('ADR-0009 a version bump that changes the manifests is synced by a new operation at the new version', async () => {
  const { name } = await app('bump', { sources: [chart('demo', '1.0.0', { name: 'chart' })] });
  await appReaches(name, 'to be synced at 1.0.0', syncedAt('1.0.0'), SLOW);
  await patchApp(name, { spec: { sources: [chart('demo', '1.1.0', { name: 'chart' })] } });
  const bumped = await appReaches(
    name,
    'to be synced by an operation at 1.1.0',
    (a) => syncedAt('1.1.0')(a) && JSON.stringify(op(a)?.syncResult?.revisions) === '["1.1.0"]',
    SLOW,
  );
  assert.equal(op(bumped)?.phase, 'Succeeded');
});

test('ADR-0009 REG-4 credentials: a repo-creds template whose URL has a port never matches (ComparisonError); a repository Secret of the exact URL does; a missing chart is a ComparisonError naming it', async () => {
  const path = `aicr/${prefix}-creds`;
  await pushChart(`${prefix}-demo`, '1.0.0', {}, path);
  const url = `${testEnv().TESTENV_REGISTRY}/${path}`;
  cleanups.push(await repositorySecret(`${prefix}-template`, url, 'repo-creds'));
  const { name } = await app('creds', {
    sources: [{ repoURL: url, chart: `${prefix}-demo`, targetRevision: '1.0.0', name: 'chart' }],
  });
  const refused = await appReaches(name, 'to report a ComparisonError', (a) => comparisonError(a) !== undefined, SLOW);
  assert.match(comparisonError(refused)?.message ?? '', /invalid chart URL format|unauthorized|401/i);
  assert.notEqual(sync(refused)?.status, 'Synced');
  cleanups.push(await repositorySecret(`${prefix}-exact`, url));
  await patchApp(name, { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'hard' } } });
  await appReaches(name, 'to sync with the repository Secret', syncedAt('1.0.0'), SLOW);
  const missing = await app('missing', { sources: [chart('demo', '9.9.9', { name: 'chart' })] });
  const notFound = await appReaches(
    missing.name,
    'to report the missing chart',
    (a) => comparisonError(a) !== undefined,
    SLOW,
  );
  assert.match(comparisonError(notFound)?.message ?? '', /9\.9\.9|not found/i);
  assert.notEqual(op(notFound)?.phase, 'Succeeded', 'nothing synced');
});

test('ADR-0009 refresh: the annotation is removed and reconciledAt advances past the request', async () => {
  const { name } = await app('refresh', { sources: [chart('demo', '1.0.0', { name: 'chart' })] });
  const before = await appReaches(name, 'to be synced', syncedAt('1.0.0'), SLOW);
  const asked = Date.now();
  await new Promise((r) => setTimeout(r, 1100));
  await patchApp(name, { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
  const after = await appReaches(
    name,
    'to consume the refresh',
    (a) =>
      !(a?.metadata.annotations ?? {})['argocd.argoproj.io/refresh'] &&
      Date.parse(a?.status?.reconciledAt ?? '') >= Math.floor(asked / 1000) * 1000,
    SLOW,
  );
  assert.ok(
    Date.parse(after?.status?.reconciledAt ?? '') > Date.parse(before?.status?.reconciledAt ?? ''),
    'reconciledAt advanced',
  );
});

test('ADR-0009 FIN-4 deleting an Application with the resources finalizer deletes its resources, but never its CRD or a resource annotated helm.sh/resource-policy: keep', async () => {
  const { name, ns } = await app(
    'remove',
    { sources: [chart('demo', '1.0.0', { name: 'chart', helm: { releaseName: 'gone' } })] },
    { finalizers: ['resources-finalizer.argocd.argoproj.io'] },
  );
  await appReaches(name, 'to be synced', syncedAt('1.0.0'), SLOW);
  const crd = `widgets.${fixtureGroup(`${prefix}-demo`)}`;
  assert.ok(await exists('-n', ns, 'deployment', 'gone-workload'));
  await deleteApp(name);
  await appReaches(name, 'to be gone once its resources are deleted', (a) => a === undefined, SLOW);
  assert.equal(await exists('-n', ns, 'deployment', 'gone-workload'), false, 'the workload is deleted');
  assert.equal(await exists('-n', ns, 'configmap', 'gone-fixture'), false, 'a plain resource is deleted');
  assert.equal(await exists(crd, '-n', ns, 'gone'), false, 'the custom resource is deleted');
  assert.equal(await exists('crd', crd), true, 'the CRD stays');
  assert.equal(await exists('-n', ns, 'configmap', 'gone-kept'), true, 'the keep resource stays');
});

test('ADR-0009 ENG-1 the application controller scaled to 0 writes nothing; scaled back it syncs what changed meanwhile', async () => {
  const { name } = await app('stopped', { sources: [chart('demo', '1.0.0', { name: 'chart' })] });
  await appReaches(name, 'to be synced', syncedAt('1.0.0'), SLOW);
  const knob = await stopArgoCd();
  try {
    assert.equal((await readStatefulSet())?.status?.readyReplicas ?? 0, 0);
    const edited = await patchApp(name, { spec: { sources: [chart('demo', '1.1.0', { name: 'chart' })] } });
    await new Promise((r) => setTimeout(r, 3000));
    const still = await readApp(name);
    assert.equal(still?.metadata.resourceVersion, edited.metadata.resourceVersion, 'no status written while stopped');
  } finally {
    await knob.undo();
  }
  await appReaches(name, 'to sync at 1.1.0 once back', syncedAt('1.1.0'), SLOW);
});

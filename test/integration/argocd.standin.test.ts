// The Argo CD application controller stand-in, seen only through the API server as the control
// plane sees Argo CD: status written for Applications whose charts are in the test registry,
// comparison errors naming what failed, manual and automated syncs, refresh, the resources
// finalizer, its test knobs, and nothing written at all while its StatefulSet is scaled to 0.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { testEnv, uniqueName } from '../helpers/env.ts';
import { type Application, appReaches, createApp, deleteApp, lastTestWrite, patchApp, pushChart, readApp, readStatefulSet, repoCreds } from '../helpers/argocd.ts';
import { argoCdDegraded, argoCdNeverSync, argoCdOlderRevision, stopArgoCd, withKnob } from '../helpers/knobs.ts';

const prefix = uniqueName('standin');
const repoURL = `${testEnv().TESTENV_REGISTRY}/${prefix}`;
const cleanups: (() => Promise<void>)[] = [];
const apps: string[] = [];

before(async () => {
  await pushChart(`${prefix}/demo`, '1.0.0');
  await pushChart(`${prefix}/demo`, '1.1.0');
  await pushChart(`${prefix}/other`, '2.0.0');
  cleanups.push(await repoCreds(`${prefix}-creds`, repoURL));
});

after(async () => {
  await Promise.all(apps.map(deleteApp));
  for (const undo of cleanups) await undo();
});

const destination = { server: 'https://kubernetes.default.svc', namespace: 'demo' };
const source = (version: string, chart = 'demo', repo = repoURL): Record<string, string> => ({ repoURL: repo, chart, targetRevision: version });

function app(tag: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Promise<Application> {
  const name = uniqueName(tag);
  apps.push(name);
  return createApp(name, { project: 'default', destination, ...spec }, metadata);
}

const automated = { automated: { prune: true, selfHeal: true } };
const sync = (a: Application | undefined) => a?.status?.sync;
const op = (a: Application | undefined) => a?.status?.operationState;
const healthOf = (a: Application | undefined): string | undefined => a?.status?.health?.status;
const comparisonError = (a: Application | undefined) => a?.status?.conditions?.find((c) => c.type === 'ComparisonError');
const syncedAt = (version: string) => (a: Application | undefined): boolean =>
  sync(a)?.status === 'Synced' && sync(a)?.revision === version && healthOf(a) === 'Healthy' && op(a)?.phase === 'Succeeded';
const nameOf = (a: Application): string => a.metadata.name;

/** What a finished sync recorded, gathered in one object to compare whole. */
const record = (a: Application | undefined) => ({
  comparedTo: sync(a)?.comparedTo,
  syncResult: op(a)?.syncResult,
  message: op(a)?.message,
  operation: op(a)?.operation.sync,
  history: a?.status?.history?.map((h) => h.revision),
  byArgoCd: a?.metadata.managedFields?.some((f) => f.manager === 'argocd-application-controller'),
});
const reconciledAt = (a: Application | undefined): string => a?.status?.reconciledAt ?? '';

test('automated sync: Synced and Healthy at the target, with comparedTo, a Succeeded operation, history and reconciledAt', async () => {
  const created = await app('auto', { source: source('1.0.0'), syncPolicy: automated });
  const done = await appReaches(nameOf(created), 'to be synced at 1.0.0', syncedAt('1.0.0'));
  assert.deepEqual(record(done), {
    comparedTo: { source: source('1.0.0'), destination },
    syncResult: { revision: '1.0.0', source: source('1.0.0') },
    message: 'successfully synced (Argo CD stand-in: no resources were applied)',
    operation: { revision: '1.0.0' },
    history: ['1.0.0'],
    byArgoCd: true,
  });
  assert.match(reconciledAt(done), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.ok(Date.parse(reconciledAt(done)) >= lastTestWrite(done), 'reconciledAt is not before the last write');

  await patchApp(nameOf(created), { spec: { source: source('1.1.0') } });
  const again = await appReaches(nameOf(created), 'to be synced again at 1.1.0', syncedAt('1.1.0'));
  assert.deepEqual(record(again).comparedTo, { source: source('1.1.0'), destination });
  assert.deepEqual(record(again).history, ['1.0.0', '1.1.0']);
});

test('several sources: revisions index-aligned with spec.sources, in sync and in the sync result', async () => {
  const sources = [source('1.0.0'), source('2.0.0', 'other')];
  const created = await app('multi', { sources, syncPolicy: automated });
  const done = await appReaches(nameOf(created), 'to be synced', (a) => sync(a)?.status === 'Synced' && op(a)?.phase === 'Succeeded');
  assert.deepEqual(sync(done)?.revisions, ['1.0.0', '2.0.0']);
  assert.deepEqual(op(done)?.syncResult?.revisions, ['1.0.0', '2.0.0']);
  assert.deepEqual(sync(done)?.comparedTo, { sources, destination });
});

test('a chart missing from the registry, refused credentials or none: ComparisonError naming it, sync Unknown, no sync', async () => {
  const missing = await app('missing', { source: source('9.9.9'), syncPolicy: automated });
  const bad = `${repoURL}-refused`;
  cleanups.push(await repoCreds(`${prefix}-refused`, bad, 'not-the-password'));
  const refused = await app('refused', { source: source('1.0.0', 'demo', bad), syncPolicy: automated });
  const none = await app('nocreds', { source: source('1.0.0', 'demo', 'registry.invalid.example/charts'), syncPolicy: automated });
  const cases: [Application, RegExp][] = [
    [missing, /chart demo version 9\.9\.9 from .*\/standin-.*: GET http:\/\/.*\/manifests\/9\.9\.9: 404 Not Found.*\(Argo CD stand-in\)$/],
    [refused, /chart demo version 1\.0\.0 from .*-refused: GET .*: 401 Unauthorized.*\(Argo CD stand-in\)$/],
    [none, /no repository credentials in namespace argocd match registry\.invalid\.example\/charts \(Argo CD stand-in\)$/],
  ];
  for (const [created, message] of cases) {
    const seen = await appReaches(nameOf(created), 'to report a ComparisonError', (a) => comparisonError(a) !== undefined);
    assert.match(comparisonError(seen)?.message ?? '', message);
    assert.equal(sync(seen)?.status, 'Unknown');
    assert.equal(healthOf(seen), 'Unknown');
    assert.equal(op(seen), undefined, 'no sync was attempted');
  }
  await pushChart(`${prefix}/demo`, '9.9.9');
  const fixed = await appReaches(nameOf(missing), 'to sync once the chart exists', syncedAt('9.9.9'));
  assert.equal(comparisonError(fixed), undefined);
});

test('without automated sync: OutOfSync; a manual operation syncs and is cleared', async () => {
  const manual = await app('manual', { source: source('1.0.0') });
  const disabled = await app('disabled', { source: source('1.0.0'), syncPolicy: { automated: { enabled: false } } });
  for (const created of [manual, disabled]) {
    const seen = await appReaches(nameOf(created), 'to be compared', (a) => sync(a)?.status !== undefined);
    assert.equal(sync(seen)?.status, 'OutOfSync');
    assert.equal(op(seen), undefined);
  }
  await patchApp(nameOf(manual), { operation: { sync: { revision: '1.0.0' }, initiatedBy: { username: 'tester' } } });
  const done = await appReaches(nameOf(manual), 'to finish the requested sync', (a) => syncedAt('1.0.0')(a) && a?.operation == null);
  assert.deepEqual(op(done)?.operation.initiatedBy, { username: 'tester' });
  assert.equal(sync(await readApp(nameOf(disabled)))?.status, 'OutOfSync', 'automated.enabled=false never syncs');
});

/** Waits until the clock is past the second of `at`, so a later reconciledAt differs from it. */
async function nextSecond(at: string | undefined): Promise<void> {
  const wait = Date.parse(at ?? '') + 1000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}

test('refresh: the annotation (and its timestamp) is removed and reconciledAt advances past the request', async () => {
  const created = await app('refresh', { source: source('1.0.0'), syncPolicy: automated });
  const synced = await appReaches(nameOf(created), 'to be synced', syncedAt('1.0.0'));
  await nextSecond(synced?.status?.reconciledAt);
  await patchApp(nameOf(created), { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal', 'argocd.argoproj.io/refresh-timestamp': new Date().toISOString() } } });
  const refreshed = await appReaches(nameOf(created), 'to consume the refresh', (a) => !Object.keys(a?.metadata.annotations ?? {}).some((k) => k.startsWith('argocd.argoproj.io/refresh')));
  const at = await appReaches(nameOf(created), 'to record the reconcile', (a) => (a?.status?.reconciledAt ?? '') > (synced?.status?.reconciledAt ?? ''));
  assert.ok(Date.parse(at?.status?.reconciledAt ?? '') >= lastTestWrite(refreshed), 'reconciledAt is not before the refresh request');
});

test('deletion: the resources finalizer is released, other finalizers are kept', async () => {
  const created = await app('fin', { source: source('1.0.0'), syncPolicy: automated }, { finalizers: ['resources-finalizer.argocd.argoproj.io', 'example.com/keep'] });
  await appReaches(nameOf(created), 'to be synced', syncedAt('1.0.0'));
  await deleteApp(nameOf(created));
  const kept = await appReaches(nameOf(created), 'to lose the resources finalizer', (a) => a?.metadata.finalizers?.length === 1);
  assert.deepEqual(kept?.metadata.finalizers, ['example.com/keep']);
  await patchApp(nameOf(created), { metadata: { finalizers: null } });
  await appReaches(nameOf(created), 'to be gone', (a) => a === undefined);
});

test('knob argoCdDegraded: synced as usual, health Degraded with a message', async () => {
  const name = uniqueName('degraded');
  await withKnob(argoCdDegraded([name]), async () => {
    apps.push(name);
    await createApp(name, { project: 'default', destination, source: source('1.0.0'), syncPolicy: automated });
    const done = await appReaches(name, 'to be synced and Degraded', (a) => sync(a)?.status === 'Synced' && healthOf(a) === 'Degraded');
    assert.match(done?.status?.health?.message ?? '', /Degraded \(test knob\) \(Argo CD stand-in\)/);
    assert.equal(op(done)?.phase, 'Succeeded');
  });
});

test('knob argoCdNeverSync: no sync and no status but reconciledAt, which still advances on refresh', async () => {
  const name = uniqueName('never');
  await withKnob(argoCdNeverSync([name]), async () => {
    apps.push(name);
    await createApp(name, { project: 'default', destination, source: source('1.0.0'), syncPolicy: automated });
    const first = await appReaches(name, 'to be reconciled', (a) => a?.status?.reconciledAt !== undefined);
    await nextSecond(first?.status?.reconciledAt);
    await patchApp(name, { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'hard' } } });
    const later = await appReaches(name, 'to be reconciled again', (a) => (a?.status?.reconciledAt ?? '') > (first?.status?.reconciledAt ?? ''));
    assert.equal(later?.metadata.annotations?.['argocd.argoproj.io/refresh'], undefined);
    assert.equal(sync(later), undefined);
    assert.equal(op(later), undefined);
  });
});

test('knob argoCdOlderRevision: Synced and Healthy, but at the previous revision; undone, it syncs to the target', async () => {
  const created = await app('older', { source: source('1.0.0'), syncPolicy: automated });
  const name = nameOf(created);
  await appReaches(name, 'to be synced at 1.0.0', syncedAt('1.0.0'));
  await withKnob(argoCdOlderRevision([name]), async () => {
    await patchApp(name, { spec: { source: source('1.1.0') } });
    const done = await appReaches(name, 'to report 1.0.0 for target 1.1.0', (a) => syncedAt('1.0.0')(a) && a?.status?.history?.length === 2);
    assert.equal(op(done)?.syncResult?.revision, '1.0.0');
    assert.deepEqual(sync(done)?.comparedTo, { source: source('1.1.0'), destination });
  });
  await patchApp(name, { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
  await appReaches(name, 'to sync to 1.1.0 once the knob is gone', syncedAt('1.1.0'));
});

test('stopArgoCd: scaled to 0 nothing writes status (readyReplicas 0); scaled back it resumes', async () => {
  const created = await app('stopped', { source: source('1.0.0'), syncPolicy: automated });
  await appReaches(nameOf(created), 'to be synced', syncedAt('1.0.0'));
  const knob = await stopArgoCd();
  const name = uniqueName('while-stopped');
  apps.push(name);
  try {
    assert.equal((await readStatefulSet())?.status?.readyReplicas ?? 0, 0);
    await createApp(name, { project: 'default', destination, source: source('1.0.0'), syncPolicy: automated });
    await patchApp(nameOf(created), { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
    // Longer than a resync period (3 s) of a running stand-in.
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal((await readApp(name))?.status, undefined, 'nothing wrote status while stopped');
    assert.equal((await readApp(nameOf(created)))?.metadata.annotations?.['argocd.argoproj.io/refresh'], 'normal');
  } finally {
    await knob.undo();
  }
  assert.equal((await readStatefulSet())?.status?.readyReplicas, 1);
  await appReaches(name, 'to be synced once Argo CD is back', syncedAt('1.0.0'));
  await appReaches(nameOf(created), 'to consume the refresh', (a) => a?.metadata.annotations?.['argocd.argoproj.io/refresh'] === undefined);
});

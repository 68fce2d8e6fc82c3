// A plan's Applications through the real API server and Argo CD's real Application CRD: written
// with server-side apply as the control plane (or created), listed back by the managed-by label,
// they rebuild the same release set and plan digest, with Helm values intact (nulls, floats,
// big numbers, empty maps and lists, dotted keys, strings like "true"). Edits show in the
// rebuilt digest; a lost annotation or dependency is a problem naming the Application.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError } from '../../shared/errors.ts';
import { ANNOTATION, FIELD_MANAGER, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../../shared/api/constants.ts';
import { KubeRequestError } from '../../shared/errors.ts';
import { type GenericObject, GenericObjectSchema, KIND, type Kind } from '../../shared/kube/kinds.ts';
import {
  type PlanApplication,
  applicationsDigest,
  applicationsToReleases,
  planToApplications,
} from '../../shared/plans/applications.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import { type Release, sortReleases } from '../../shared/plans/release.ts';
import { core, readOrUndefined, waitFor } from '../helpers/cluster.ts';
import { controlPlaneKube } from '../../harness/controlPlane.ts';
import { sampleReleases } from '../helpers/releases.ts';

const kube = controlPlaneKube();
const NAMESPACE: Kind<GenericObject> = {
  apiVersion: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  schema: GenericObjectSchema,
};
const ns = NAMESPACES.argocd;
/** This suite's runtime: only its Applications are read and removed. */
const runtimeUID = '5e1f0c2a-7b3d-4e8f-a1c2-d3e4f5a6b7c8';
let createdNamespace = false;

type Spec = { source?: HelmSpec; sources?: HelmSpec[]; destination: { namespace: string } };
type HelmSpec = {
  targetRevision: string;
  helm: { valuesObject?: Record<string, unknown>; values?: string; releaseName: string };
};
const specOf = (app: GenericObject): Spec => app['spec'] as Spec;

async function ours(): Promise<GenericObject[]> {
  const { items } = await kube.list(KIND.application, {
    namespace: ns,
    labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
  });
  return items.filter((app) => app.metadata.annotations?.[ANNOTATION.runtimeUID] === runtimeUID);
}

async function removeOurs(): Promise<void> {
  for (const app of await ours()) await kube.delete(KIND.application, app.metadata.name, ns);
}

function applicationsOf(releases: readonly Release[]): PlanApplication[] {
  return planToApplications(releases, { runtimeUID, planDigest: planDigest(releases) });
}

async function applyAll(apps: readonly PlanApplication[], force = false): Promise<void> {
  for (const app of apps) await kube.apply(KIND.application, app, { fieldManager: FIELD_MANAGER.rollout, force });
}

async function rebuiltDigest(): Promise<string> {
  const rebuilt = applicationsDigest(await ours());
  assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
  return rebuilt.digest;
}

/**
 * Reads, edits and writes back one Application whole, as `kubectl edit` would, reading again
 * when Argo CD wrote its status in between (a person would save the edit again).
 */
async function edit(name: string, change: (app: GenericObject) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const app = await kube.get(KIND.application, name, ns);
    assert.ok(app, `no Application ${name}`);
    change(app);
    try {
      await kube.update(KIND.application, { ...app, metadata: { ...app.metadata, namespace: ns } });
      return;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= 5) throw err;
    }
  }
}

/** A namespace being deleted takes new objects no more: wait until it has gone. */
const namespaceGone = () =>
  waitFor({
    path: '/api/v1/namespaces',
    name: ns,
    what: `namespace ${ns} to be gone`,
    read: () => readOrUndefined(() => core().readNamespace({ name: ns })),
    until: (n) => n === undefined,
  });

before(async () => {
  const existing = await kube.get(NAMESPACE, ns);
  if (existing?.metadata.deletionTimestamp) await namespaceGone();
  if (!existing || existing.metadata.deletionTimestamp) {
    await kube.create(NAMESPACE, { metadata: { name: ns } });
    createdNamespace = true;
  }
  await removeOurs();
});

after(async () => {
  await removeOurs();
  if (!createdNamespace) return;
  await kube.delete(NAMESPACE, ns);
  await namespaceGone();
});

test('PLAN-1 a plan applied server-side as the control plane, listed back by the managed-by label, rebuilds the same releases and digest', async () => {
  const releases = sampleReleases();
  await applyAll(applicationsOf(releases));
  const readBack = await ours();
  assert.equal(readBack.length, releases.length);
  const rebuilt = applicationsToReleases(readBack);
  assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
  // Every awkward value came back as written: deepEqual is exact on nulls, numbers, {} and [].
  assert.deepEqual(rebuilt.releases, sortReleases(releases));
  assert.equal(planDigest(rebuilt.releases), planDigest(releases));
  for (const app of readBack) assert.equal(app.metadata.annotations?.[ANNOTATION.planDigest], planDigest(releases));
  const byName = new Map(readBack.map((app) => [app.metadata.name, specOf(app)]));
  assert.equal(byName.get('gpu-operator')?.sources?.length, 2);
  assert.equal(
    (byName.get('gpu-operator')?.sources?.[0]?.helm.valuesObject?.['daemonsets'] as Record<string, unknown>)[
      'priorityClassName'
    ],
    null,
  );
  assert.equal(
    typeof byName.get('kube-prometheus-stack')?.source?.helm.values,
    'string',
    'values with an empty map ride as text',
  );
});

test('PLAN-1 the same Applications created (not applied) rebuild the same digest', async () => {
  await removeOurs();
  const releases = sampleReleases();
  for (const app of applicationsOf(releases)) await kube.create(KIND.application, app);
  assert.equal(await rebuiltDigest(), planDigest(releases));
});

const find = (releases: Release[], name: string): Release => releases.find((r) => r.name === name) as Release;
const appNamed = async (name: string): Promise<Spec> =>
  specOf((await kube.get(KIND.application, name, ns)) as GenericObject);

/**
 * The sample plan, then one that empties a map, nulls values and drops values the first one
 * filled: on a lone `spec.source` (a map the API server tracks field by field) and on
 * `spec.sources` (a list it replaces whole, as the CRD gives it no list type).
 */
function twoPlans(): [Release[], Release[]] {
  const first = sampleReleases();
  find(first, 'nvsentinel').values['scheduling'] = { nodeSelector: { 'node-role.aicr.run/system': 'true' } };
  find(first, 'gpu-operator').values['migManager'] = { config: { name: 'custom-mig', default: 'all-disabled' } };
  const second = structuredClone(first);
  find(second, 'nvsentinel').values = { global: { metrics: null }, scheduling: { nodeSelector: {} } };
  find(second, 'gpu-operator').values['migManager'] = { config: {} };
  find(second, 'gpu-operator').values['driver'] = { enabled: true, upgradePolicy: null };
  find(second, 'cert-manager').values = {};
  return [first, second];
}

test('PLAN-1 re-applying a changed plan server-side reads back as the new plan: maps emptied, values nulled, values dropped', async () => {
  await removeOurs();
  const [first, second] = twoPlans();
  await applyAll(applicationsOf(first));
  assert.equal(await rebuiltDigest(), planDigest(first));
  await applyAll(applicationsOf(second));
  const rebuilt = applicationsToReleases(await ours());
  assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
  assert.deepEqual(rebuilt.releases, sortReleases(second));
  const nvsentinel = (await appNamed('nvsentinel')).source?.helm;
  assert.equal(typeof nvsentinel?.values, 'string');
  assert.equal(nvsentinel?.valuesObject, undefined, 'the earlier valuesObject is gone with its owner');
  assert.deepEqual((await appNamed('cert-manager')).source?.helm, { releaseName: 'cert-manager' });
});

test('the API server stores a map emptied by a re-apply as null on spec.source, and refuses an emptied valuesObject (why such values ride as text)', async () => {
  await removeOurs();
  const [first, second] = twoPlans();
  await applyAll(applicationsOf(first));
  const asObject = (name: string, values: Release['values']): PlanApplication => {
    const app = applicationsOf(second).find((a) => a.metadata.name === name) as PlanApplication;
    const chart = app.spec.source ?? app.spec.sources?.[0];
    if (chart) chart.helm = { releaseName: name, valuesObject: values };
    return app;
  };
  await applyAll([
    asObject('nvsentinel', find(second, 'nvsentinel').values),
    asObject('gpu-operator', find(second, 'gpu-operator').values),
  ]);
  const scheduling = (await appNamed('nvsentinel')).source?.helm.valuesObject?.['scheduling'];
  assert.deepEqual(
    scheduling,
    { nodeSelector: null },
    'if {} now survives on spec.source, the text rule is no longer needed (but still exact)',
  );
  const mig = (await appNamed('gpu-operator')).sources?.[0]?.helm.valuesObject?.['migManager'];
  assert.deepEqual(mig, { config: {} }, 'spec.sources is one atomic list: it is replaced whole');
  assert.notEqual(await rebuiltDigest(), planDigest(second));
  await assert.rejects(
    applyAll([asObject('cert-manager', {})]),
    (err: unknown) => err instanceof KubeRequestError && err.status === 422,
  );
});

test("PLAN-1 an edit of one Application's values, chart digest or version, or destination namespace changes the rebuilt digest; a forced re-apply restores it", async () => {
  await removeOurs();
  const releases = sampleReleases();
  await applyAll(applicationsOf(releases));
  const chartOf = (app: GenericObject): HelmSpec => (specOf(app).source ?? specOf(app).sources?.[0]) as HelmSpec;
  const valuesOf = (app: GenericObject): Record<string, unknown> =>
    chartOf(app).helm.valuesObject as Record<string, unknown>;
  const edits: [string, string, (app: GenericObject) => void][] = [
    ['gpu-operator', 'values', (app) => (valuesOf(app)['toolkit'] = { enabled: 'false' })],
    ['nvsentinel', 'values', (app) => (valuesOf(app)['global'] = { metrics: { enabled: false } })],
    [
      'gpu-operator',
      'chart digest',
      (app) => {
        chartOf(app).targetRevision = `sha256:${'f'.repeat(64)}`;
        (app.metadata.annotations ??= {})[ANNOTATION.chartDigest] = `sha256:${'f'.repeat(64)}`;
      },
    ],
    [
      'cert-manager',
      'chart version',
      (app) => ((app.metadata.annotations ??= {})[ANNOTATION.chartVersion] = 'v1.18.0'),
    ],
    [
      'kube-prometheus-stack',
      'chart version (by version: a plan without digests)',
      (app) => (chartOf(app).targetRevision = '75.15.2'),
    ],
    ['gpu-operator', 'destination namespace', (app) => (specOf(app).destination.namespace = 'gpu-operator-resources')],
    ['gpu-operator', 'an added value', (app) => (valuesOf(app)['extra'] = 1)],
  ];
  for (const [name, what, change] of edits) {
    await edit(name, change);
    assert.notEqual(
      await rebuiltDigest(),
      planDigest(releases),
      `an edit of ${name}'s ${what} must show in the digest`,
    );
    await applyAll(applicationsOf(releases), true);
    assert.equal(await rebuiltDigest(), planDigest(releases), `re-applying undoes the edit of ${name}'s ${what}`);
  }
  // On a lone spec.source a key someone else added is theirs: the re-apply leaves it, only the digest tells.
  await edit('nvsentinel', (app) => (valuesOf(app)['extra'] = 1));
  await applyAll(applicationsOf(releases), true);
  assert.notEqual(await rebuiltDigest(), planDigest(releases), 'a value added by another writer survives the re-apply');
});

test('PLAN-1 an Application that lost an annotation, or a dependency that lost its Application, is a problem naming it', async () => {
  await removeOurs();
  const releases = sampleReleases();
  await applyAll(applicationsOf(releases));
  await kube.patch(KIND.application, 'nvsentinel', ns, {
    metadata: { annotations: { [ANNOTATION.releaseOrder]: null } },
  });
  await kube.delete(KIND.application, 'cert-manager', ns);
  const rebuilt = applicationsToReleases(await ours());
  assert.deepEqual(rebuilt.ok ? [] : rebuilt.problems, [
    `Application nvsentinel: missing annotation ${ANNOTATION.releaseOrder}`,
    'Application gpu-operator: depends on "cert-manager", which is not among the Applications',
  ]);
});

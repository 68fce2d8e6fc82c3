// The pure mapping between a plan's releases and Argo CD Applications, and its inverse: what
// each Application carries, that the inverse rebuilds the same release set (and digest) from
// them after a JSON round trip, that edits show in the digest, and the problems it reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ANNOTATION, ARGOCD, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../../shared/api/constants.ts';
import {
  type PlanApplication,
  applicationsDigest,
  applicationsToReleases,
  planToApplications,
} from '../../shared/plans/applications.ts';
import { canonicalJson, planDigest } from '../../shared/plans/digest.ts';
import { type Release, sortReleases } from '../../shared/plans/release.ts';
import { manifestsOf, mirrored, sampleReleases } from '../helpers/releases.ts';

const owner = { runtimeUID: '0b6f3c1e-5d2a-4f7e-9c8b-1a2b3c4d5e6f', planDigest: planDigest(sampleReleases()) };
/** What the API server hands back: JSON, with fields of its own added. */
const asServed = (apps: readonly PlanApplication[]): Record<string, unknown>[] =>
  (JSON.parse(JSON.stringify(apps)) as Record<string, unknown>[]).map((app) => ({
    ...app,
    status: { sync: { status: 'Synced' } },
  }));
const byName = (apps: PlanApplication[], name: string): PlanApplication => {
  const app = apps.find((a) => a.metadata.name === name);
  assert.ok(app, `no Application ${name}`);
  return app;
};
const problemsOf = (apps: readonly unknown[]): string[] => {
  const rebuilt = applicationsToReleases(apps);
  assert.equal(rebuilt.ok, false, 'expected problems');
  return rebuilt.ok ? [] : rebuilt.problems;
};
const sample = (): PlanApplication[] => planToApplications(sampleReleases(), owner);

test('one Application per release, in deployment order, in argocd under the default project, owned and labelled', () => {
  const apps = sample();
  assert.deepEqual(
    apps.map((a) => a.metadata.name),
    sortReleases(sampleReleases()).map((r) => r.name),
  );
  for (const app of apps) {
    assert.equal(app.apiVersion, 'argoproj.io/v1alpha1');
    assert.equal(app.kind, 'Application');
    assert.equal(app.metadata.namespace, NAMESPACES.argocd);
    assert.equal(app.spec.project, ARGOCD.defaultProject);
    assert.deepEqual(app.metadata.labels, { [LABEL.managedBy]: MANAGED_BY_VALUE });
    assert.equal(app.metadata.annotations[ANNOTATION.runtimeUID], owner.runtimeUID);
    assert.equal(app.metadata.annotations[ANNOTATION.planDigest], owner.planDigest);
    assert.equal((app.spec.destination as { server?: string }).server, ARGOCD.inClusterServer);
    assert.deepEqual(app.spec.syncPolicy, {
      automated: { prune: true, selfHeal: true },
      syncOptions: ['CreateNamespace=true', 'ServerSideApply=true'],
    });
  }
  const other = planToApplications(sampleReleases(), owner, { project: 'aicr', namespace: 'gitops' })[0];
  assert.deepEqual([other?.spec.project, other?.metadata.namespace], ['aicr', 'gitops']);
});

test('order is always annotated; depends-on, manual, steps and chart digests only when they say something', () => {
  const apps = sample();
  assert.deepEqual(byName(apps, 'cert-manager').metadata.annotations, {
    [ANNOTATION.runtimeUID]: owner.runtimeUID,
    [ANNOTATION.planDigest]: owner.planDigest,
    [ANNOTATION.releaseOrder]: '0',
    [ANNOTATION.chartDigest]: sampleReleases()[0]?.chart?.digest,
    [ANNOTATION.chartVersion]: 'v1.17.2',
  });
  assert.deepEqual(
    Object.keys(byName(apps, 'kube-prometheus-stack').metadata.annotations).sort(),
    [ANNOTATION.planDigest, ANNOTATION.releaseOrder, ANNOTATION.runtimeUID].sort(),
    'a release of a plan made before digests were recorded carries none',
  );
  const sky = byName(apps, 'skyhook-customizations').metadata.annotations;
  assert.equal(sky[ANNOTATION.dependsOn], 'gpu-operator');
  assert.equal(sky[ANNOTATION.manual], 'true');
  assert.deepEqual(JSON.parse(sky[ANNOTATION.steps] ?? ''), sampleReleases()[5]?.steps);
  assert.equal(
    byName(apps, 'nvsentinel').metadata.annotations[ANNOTATION.dependsOn],
    'gpu-operator,kube-prometheus-stack',
  );
});

test("SEC-9 sources: pinned by digest in Argo CD's OCI form where the plan recorded one, by version in the Helm-over-OCI form otherwise", () => {
  const apps = sample();
  const gpu = byName(apps, 'gpu-operator').spec;
  const release = sampleReleases()[2];
  assert.equal(gpu.source, undefined);
  assert.deepEqual(
    gpu.sources?.map((s) => ({ ...s, helm: s.helm.releaseName })),
    [
      {
        name: 'chart',
        repoURL: `oci://${mirrored('gpu-operator', 'v25.3.4').repoURL}/gpu-operator`,
        path: '.',
        targetRevision: release?.chart?.digest,
        helm: 'gpu-operator',
      },
      {
        name: 'manifests',
        repoURL: `oci://${manifestsOf('gpu-operator', '').repoURL}/gpu-operator-manifests`,
        path: '.',
        targetRevision: release?.manifests?.digest,
        helm: 'gpu-operator',
      },
    ],
  );
  const annotations = byName(apps, 'gpu-operator').metadata.annotations;
  assert.deepEqual(
    [annotations[ANNOTATION.chartVersion], annotations[ANNOTATION.manifestsVersion]],
    ['v25.3.4', '0.11.1'],
    'the versions stay visible beside the digests',
  );
  assert.deepEqual(
    byName(apps, 'kube-prometheus-stack').spec.source,
    {
      name: 'chart',
      repoURL: mirrored('kube-prometheus-stack', '').repoURL,
      chart: 'kube-prometheus-stack',
      targetRevision: '75.15.1',
      helm: byName(apps, 'kube-prometheus-stack').spec.source?.helm,
    },
    'a release of a plan without digests names its chart by version',
  );
});

test('sources: chart then manifests as `sources`, a lone one as `source`', () => {
  const apps = sample();
  const gpu = byName(apps, 'gpu-operator').spec;
  assert.deepEqual(gpu.sources?.[0]?.helm.valuesObject, sampleReleases()[2]?.values, 'values ride on the chart source');
  assert.deepEqual(
    Object.keys(gpu.sources?.[1]?.helm ?? {}),
    ['releaseName'],
    'the manifests source carries no values',
  );
  assert.equal(byName(apps, 'cert-manager').spec.source?.name, 'chart');
  assert.equal(byName(apps, 'kgateway-crds').spec.source?.name, 'manifests');
  assert.deepEqual(
    byName(apps, 'skyhook-customizations').spec.source?.helm.valuesObject,
    { tuning: { hugepages: 2048 } },
    'manifests alone carry the values',
  );
  assert.equal(byName(apps, 'kube-prometheus-stack').spec.destination.namespace, 'monitoring');
});

test('values: valuesObject, JSON text in helm.values when they hold an empty map anywhere, nothing when empty', () => {
  const apps = sample();
  assert.deepEqual(byName(apps, 'kgateway-crds').spec.source?.helm, { releaseName: 'kgateway-crds' });
  const prom = byName(apps, 'kube-prometheus-stack').spec.source?.helm;
  assert.equal(prom?.valuesObject, undefined);
  assert.deepEqual(JSON.parse(prom?.values ?? ''), sampleReleases()[3]?.values);
  const helmOf = (values: Release['values']) =>
    planToApplications([{ ...sampleReleases()[0], values } as Release], owner)[0]?.spec.source?.helm;
  assert.ok(helmOf({ a: [{}] })?.values !== undefined, 'an empty map inside a list counts too');
  assert.deepEqual(
    helmOf({ a: null, b: [] })?.valuesObject,
    { a: null, b: [] },
    'nulls and empty lists stay in valuesObject',
  );
});

test('a release with neither a chart nor manifests is refused, naming it', () => {
  const bare = sampleReleases()[0] as Release;
  delete bare.chart;
  assert.throws(() => planToApplications([bare], owner), /cert-manager has neither a chart nor manifests/);
});

test('PLAN-1 the Applications, as the API server returns them, rebuild the same release set and digest', () => {
  const rebuilt = applicationsToReleases(asServed(sample()));
  assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
  assert.deepEqual(rebuilt.releases, sortReleases(sampleReleases()));
  assert.deepEqual(applicationsDigest(asServed(sample())), {
    ok: true,
    releases: rebuilt.releases,
    digest: planDigest(sampleReleases()),
  });
});

const chartArb = fc.record({
  repoURL: fc.constantFrom('r.example/charts', '1.dkr.ecr.eu-west-1.amazonaws.com/a/b'),
  chart: fc.string({ minLength: 1 }),
  version: fc.string({ minLength: 1 }),
});
// "__proto__" is left out: an object key that is also the prototype's name, which no chart uses.
const valuesArb = fc.dictionary(fc.string(), fc.jsonValue()).filter((v) => !JSON.stringify(v).includes('"__proto__"'));
const releaseArb = (name: string) =>
  fc
    .record({
      namespace: fc.string({ minLength: 1 }),
      order: fc.nat(40),
      chart: fc.option(chartArb, { nil: undefined }),
      manifests: fc.option(chartArb, { nil: undefined }),
      values: valuesArb,
      manual: fc.boolean(),
      steps: fc.array(fc.string()),
    })
    .map(({ chart, manifests, values, ...r }): Release => ({
      name,
      ...r,
      values: values as Release['values'],
      ...(chart ? { chart } : {}),
      ...(manifests || !chart ? { manifests: manifests ?? chart ?? { repoURL: 'r', chart: 'm', version: '1' } } : {}),
      dependsOn: [],
    }));
const setArb = fc
  .uniqueArray(fc.stringMatching(/^[a-z]([-a-z0-9]{0,8}[a-z0-9])?$/), { minLength: 1, maxLength: 6 })
  .chain((names) => fc.tuple(...names.map(releaseArb)))
  .map((set) =>
    set.map((r, i) => ({
      ...r,
      dependsOn: set
        .slice(0, i)
        .map((d) => d.name)
        .sort(),
    })),
  );

test('PLAN-1 any release set survives the round trip with its digest', () => {
  fc.assert(
    fc.property(setArb, (releases) => {
      const rebuilt = applicationsDigest(asServed(planToApplications(releases, owner)));
      assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
      assert.equal(rebuilt.digest, planDigest(releases));
      assert.equal(canonicalJson(rebuilt.releases), canonicalJson(sortReleases(releases)));
    }),
    { numRuns: 300 },
  );
});

test('PLAN-1 an edit of values, chart version or destination namespace changes the rebuilt digest; sync policy and status do not', () => {
  const digestAfter = (edit: (apps: PlanApplication[]) => void): string => {
    const apps = sample();
    edit(apps);
    const rebuilt = applicationsDigest(asServed(apps));
    assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
    return rebuilt.digest;
  };
  const original = planDigest(sampleReleases());
  const gpu = (apps: PlanApplication[]) => byName(apps, 'gpu-operator').spec;
  assert.notEqual(
    digestAfter((apps) => ((gpu(apps).sources?.[0]?.helm.valuesObject ?? {}).toolkit = { enabled: false })),
    original,
  );
  assert.notEqual(
    digestAfter((apps) => (byName(apps, 'gpu-operator').metadata.annotations[ANNOTATION.manifestsVersion] = '0.11.2')),
    original,
  );
  assert.notEqual(
    digestAfter((apps) => {
      const source = byName(apps, 'kube-prometheus-stack').spec.source;
      if (source) source.targetRevision = '75.15.2';
    }),
    original,
  );
  assert.notEqual(
    digestAfter((apps) => (gpu(apps).destination.namespace = 'gpu')),
    original,
  );
  assert.equal(
    digestAfter((apps) => (gpu(apps).syncPolicy = { automated: { prune: false, selfHeal: false }, syncOptions: [] })),
    original,
  );
});

type Editable = PlanApplication & { spec: Record<string, unknown> };
const without = (map: Record<string, string>, key: string) =>
  Object.fromEntries(Object.entries(map).filter(([k]) => k !== key));
/** The sample Applications as served, after one edit to the named one. */
const editedServed = (name: string, edit: (app: Editable) => void): unknown[] => {
  const apps = sample();
  edit(byName(apps, name) as Editable);
  return asServed(apps);
};

test("SEC-5 SEC-9 chart digests come back into the release set: a pinned source's digest is its revision, which its annotation must match; an unpinned one's rides as an annotation; one beside no source is not read", () => {
  const gpu = byName(sample(), 'gpu-operator').metadata.annotations;
  const release = sampleReleases()[2];
  assert.deepEqual(
    [gpu[ANNOTATION.chartDigest], gpu[ANNOTATION.manifestsDigest]],
    [release?.chart?.digest, release?.manifests?.digest],
  );
  const rebuilt = applicationsToReleases(asServed(sample()));
  assert.ok(rebuilt.ok, JSON.stringify(rebuilt));
  assert.deepEqual(rebuilt.releases.find((r) => r.name === 'gpu-operator')?.manifests, release?.manifests);
  const repinned = applicationsDigest(
    editedServed('gpu-operator', (a) => {
      const [chart] = a.spec.sources ?? [];
      if (chart) chart.targetRevision = `sha256:${'f'.repeat(64)}`;
      a.metadata.annotations[ANNOTATION.chartDigest] = `sha256:${'f'.repeat(64)}`;
    }),
  );
  assert.ok(repinned.ok);
  assert.notEqual(repinned.digest, planDigest(sampleReleases()), 'the plan digest covers what Argo CD fetches');
  assert.deepEqual(
    problemsOf(
      editedServed(
        'gpu-operator',
        (a) => (a.metadata.annotations[ANNOTATION.chartDigest] = `sha256:${'f'.repeat(64)}`),
      ),
    ),
    [
      `Application gpu-operator: source "chart" is pinned to ${release?.chart?.digest}, its annotation to sha256:${'f'.repeat(64)}`,
    ],
  );
  const dropped = applicationsDigest(
    editedServed(
      'gpu-operator',
      (a) => (a.metadata.annotations = without(a.metadata.annotations, ANNOTATION.manifestsDigest)),
    ),
  );
  assert.ok(dropped.ok);
  assert.equal(dropped.digest, planDigest(sampleReleases()), 'a pinned source keeps its digest without the annotation');
  assert.deepEqual(
    problemsOf(
      editedServed(
        'gpu-operator',
        (a) => (a.metadata.annotations = without(a.metadata.annotations, ANNOTATION.chartVersion)),
      ),
    ),
    ['Application gpu-operator: source "chart" is pinned by digest, with no chart version annotation'],
  );
  const legacy = applicationsDigest(
    editedServed(
      'kube-prometheus-stack',
      (a) => (a.metadata.annotations[ANNOTATION.chartDigest] = `sha256:${'e'.repeat(64)}`),
    ),
  );
  assert.ok(legacy.ok);
  assert.notEqual(legacy.digest, planDigest(sampleReleases()), 'beside a source by version, the annotation is the pin');
  const stray = applicationsToReleases(
    editedServed(
      'cert-manager',
      (a) => (a.metadata.annotations[ANNOTATION.manifestsDigest] = `sha256:${'1'.repeat(64)}`),
    ),
  );
  assert.ok(
    stray.ok && stray.releases[0]?.manifests === undefined,
    'a digest beside no source pins nothing and makes no source',
  );
  assert.deepEqual(
    problemsOf(
      editedServed('kube-prometheus-stack', (a) => (a.metadata.annotations[ANNOTATION.chartDigest] = 'latest')),
    ),
    ['Application kube-prometheus-stack: chart.digest: must be sha256: followed by 64 lowercase hex digits'],
  );
});

test('problems name the Application: a missing annotation or label, an order that is no order, a missing dependency', () => {
  for (const key of [ANNOTATION.runtimeUID, ANNOTATION.planDigest, ANNOTATION.releaseOrder]) {
    assert.deepEqual(
      problemsOf(editedServed('nvsentinel', (a) => (a.metadata.annotations = without(a.metadata.annotations, key)))),
      [`Application nvsentinel: missing annotation ${key}`],
    );
  }
  for (const order of ['-1', '1.5', 'two', '01']) {
    const problems = problemsOf(
      editedServed('cert-manager', (a) => (a.metadata.annotations[ANNOTATION.releaseOrder] = order)),
    );
    assert.deepEqual(problems, [
      `Application cert-manager: annotation ${ANNOTATION.releaseOrder} is not a whole number from 0: "${order}"`,
    ]);
  }
  assert.deepEqual(problemsOf(editedServed('gpu-operator', (a) => (a.metadata.labels = {}))), [
    `Application gpu-operator: missing label ${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
  ]);
  assert.deepEqual(
    problemsOf(editedServed('gpu-operator', (a) => (a.metadata.annotations[ANNOTATION.manual] = 'yes'))),
    [`Application gpu-operator: annotation ${ANNOTATION.manual} is neither "true" nor "false": "yes"`],
  );
  assert.deepEqual(
    problemsOf(editedServed('gpu-operator', (a) => (a.metadata.annotations[ANNOTATION.steps] = 'reboot'))),
    [`Application gpu-operator: annotation ${ANNOTATION.steps} is not a JSON list of strings`],
  );
  assert.deepEqual(problemsOf(asServed(sample().filter((a) => a.metadata.name !== 'gpu-operator'))), [
    'Application nvsentinel: depends on "gpu-operator", which is not among the Applications',
    'Application skyhook-customizations: depends on "gpu-operator", which is not among the Applications',
  ]);
});

test('SEC-9 problems name the Application: a source in neither form, values in two places, another release name or cluster', () => {
  const onlyProblem = (name: string, edit: (app: Editable) => void): string => {
    const problems = problemsOf(editedServed(name, edit));
    assert.equal(problems.length, 1, problems.join('\n'));
    return problems[0] ?? '';
  };
  const src = (a: Editable) => a.spec.source as unknown as Record<string, unknown> & { helm: Record<string, unknown> };
  const cm = (edit: (app: Editable) => void) => onlyProblem('cert-manager', edit);
  const kps = (edit: (app: Editable) => void) => onlyProblem('kube-prometheus-stack', edit);
  assert.match(
    kps((a) => (src(a).path = '.')),
    /^Application kube-prometheus-stack: spec\.source: .*\(neither the pinned OCI form nor the Helm-over-OCI form\)$/,
  );
  assert.match(
    cm((a) => (src(a).path = 'charts/other')),
    /^Application cert-manager: spec\.source: .*\(neither the pinned OCI form nor the Helm-over-OCI form\)$/,
  );
  assert.match(
    cm((a) => (src(a).targetRevision = 'v1.17.2')),
    /^Application cert-manager: spec\.source\.targetRevision: targetRevision must be a manifest digest/,
  );
  assert.match(
    kps((a) => (src(a).repoURL = `oci://${mirrored('x', '1').repoURL}`)),
    /^Application kube-prometheus-stack: spec\.source\.repoURL: repoURL must have no scheme \(neither the pinned/,
  );
  assert.match(
    cm((a) => (src(a).helm.parameters = [{ name: 'replicaCount', value: '3' }])),
    /^Application cert-manager: spec\.source\.helm: .*"parameters"/,
  );
  assert.match(
    cm((a) => (src(a).helm.values = 'replicaCount: 3')),
    /^Application cert-manager: helm carries both values and valuesObject/,
  );
  assert.match(
    cm((a) => ((src(a).helm.valuesObject = undefined), (src(a).helm.values = 'replicaCount: 3'))),
    /^Application cert-manager: helm\.values is not a JSON object/,
  );
  assert.match(
    cm((a) => (src(a).helm.releaseName = 'cm')),
    /^Application cert-manager: source "chart" renders as Helm release "cm", not "cert-manager"$/,
  );
  assert.match(
    cm((a) => Object.assign(a.spec.destination, { name: 'elsewhere' })),
    /^Application cert-manager: spec\.destination: /,
  );
  assert.match(
    cm((a) => Object.assign(a.spec, { sources: [a.spec.source] })),
    /^Application cert-manager: has both spec\.source and spec\.sources$/,
  );
  assert.match(
    cm((a) => delete a.spec.source),
    /^Application cert-manager: has no source$/,
  );
  const gpu = (edit: (app: Editable) => void) => onlyProblem('gpu-operator', edit);
  assert.match(
    gpu((a) => Object.assign(a.spec.sources?.[1]?.helm ?? {}, { valuesObject: { a: 1 } })),
    /^Application gpu-operator: the manifests source carries values/,
  );
  assert.match(
    problemsOf(editedServed('gpu-operator', (a) => Object.assign(a.spec.sources?.[1] ?? {}, { name: 'chart' })))[0] ??
      '',
    /^Application gpu-operator: has two sources named "chart"$/,
  );
  const renamed = (a: Editable) => ((a.metadata.name = 'kgateway.crds'), (src(a).helm.releaseName = 'kgateway.crds'));
  assert.match(
    onlyProblem('kgateway-crds', renamed),
    /^Application kgateway\.crds: name: /,
    'Argo CD allows the name, a release does not',
  );
});

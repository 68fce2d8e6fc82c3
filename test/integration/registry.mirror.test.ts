// Resolution copies each release's upstream chart into the cluster's registry, from the chart
// repository AICR's recipe names: on the test cluster that is the fixture chart repository
// (TESTENV_CHART_REPO), which the environment's AICR --data overlay points every recipe at. One
// runtime resolves through the registry proxy, whose audit counts pushes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ANNOTATION, LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { sha256 } from '../../shared/oci/push.ts';
import { planToApplications } from '../../shared/plans/applications.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { type UpstreamInputs, mirrorUpstream } from '../../shared/steps/resolve/mirrorUpstream.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { applyConfiguration, testConfiguration } from '../../harness/configuration.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { chartRepoOutage, denyRegistry, hideChartVersion, withKnob } from '../helpers/knobs.ts';
import { basicAuth, OCI_MANIFEST } from '../helpers/oci.ts';
import { readPlanNamed } from '../helpers/plans.ts';
import { proxyWriteMark, proxyWritesSince } from '../helpers/registryAudit.ts';
import { SCALED_TIMINGS, resolvedWith } from '../helpers/resolved.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const asResolve = stepKube('resolve');
const path = 'aicr';
const prefix = (): string => `${testEnv().TESTENV_REGISTRY_PROXY}/${path}`;
const planLine = (c: { status: string; message: string }): boolean =>
  c.status === 'True' && /^plan aicr-plan-/.test(c.message);
const planOf = (message: string): string => /^plan (aicr-plan-[0-9a-f]+)/.exec(message)?.[1] ?? '';
let cp: ReturnType<typeof startCapturedControlPlane>;
let candidate = '';

async function plans(): Promise<string[]> {
  return (
    await asResolve.list(KIND.configMap, { namespace: NAMESPACES.system, labelSelector: `${LABEL.role}=${ROLE.plan}` })
  ).items.map((p) => p.metadata.name);
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, repository: prefix() } });
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  candidate = planOf((await resolvedWith('Resolved=True with a plan', planLine, 180_000)).message);
});

after(async () => {
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await applyConfiguration();
});

/** The manifest the registry holds at repository:tag, read past the proxy. */
/** The manifest at the tag, with the digest of its bytes as the registry serves them. */
async function manifestAt(
  repository: string,
  tag: string,
): Promise<{ layers: { digest: string }[]; digest: string } | undefined> {
  const res = await fetch(`http://${testEnv().TESTENV_REGISTRY}/v2/${repository}/manifests/${tag}`, {
    headers: { ...basicAuth(), accept: OCI_MANIFEST },
  });
  if (res.status !== 200) return undefined;
  const bytes = new Uint8Array(await res.arrayBuffer());
  return {
    ...(JSON.parse(new TextDecoder().decode(bytes)) as { layers: { digest: string }[] }),
    digest: sha256(bytes),
  };
}

/** sha256 of each archive the fixture chart repository serves, by `<chart>@<version>`. */
async function upstreamDigests(): Promise<Map<string, string>> {
  const index = parse(await (await fetch(`${testEnv().TESTENV_CHART_REPO}/index.yaml`)).text()) as {
    entries: Record<string, { version: string; digest: string }[]>;
  };
  return new Map(
    Object.entries(index.entries).flatMap(([chart, list]) =>
      list.map((e) => [`${chart}@${e.version}`, `sha256:${e.digest}`] as const),
    ),
  );
}

async function resnapshot(): Promise<void> {
  await kubectl('annotate', 'clusterruntime', 'cluster', `${ANNOTATION.resnapshot}=${Date.now()}`, '--overwrite');
}

test('SEC-5 after a resolution every chart of the plan, upstream and manifests, is in the registry at its version, the plan records the digest of the manifest there, and each Application source points at it', async () => {
  const plan: Plan = await readPlanNamed(asResolve, candidate);
  const upstream = await upstreamDigests();
  const apps = planToApplications(plan.releases, { runtimeUID: plan.runtimeUID, planDigest: plan.digest });
  const charts = plan.releases.flatMap((r) => [
    ...(r.chart ? [{ r, c: r.chart, upstream: true }] : []),
    ...(r.manifests ? [{ r, c: r.manifests, upstream: false }] : []),
  ]);
  assert.equal(
    charts.filter((x) => x.upstream).length,
    11,
    'eleven of the twelve training components name an upstream chart',
  );
  for (const { r, c, upstream: isUpstream } of charts) {
    assert.equal(c.repoURL, prefix());
    const manifest = await manifestAt(`${path}/${c.chart}`, c.version);
    assert.ok(manifest, `${c.chart}:${c.version} is in the registry`);
    assert.equal(c.digest, manifest.digest, `${c.chart}: the plan pins the manifest the registry holds`);
    const annotation = isUpstream ? ANNOTATION.chartDigest : ANNOTATION.manifestsDigest;
    assert.equal(
      apps.find((a) => a.metadata.name === r.name)?.metadata.annotations[annotation],
      c.digest,
      `${r.name}: the Application carries that digest`,
    );
    if (isUpstream)
      assert.equal(
        manifest.layers[0]?.digest,
        upstream.get(`${c.chart}@${c.version}`),
        `${c.chart}: the very archive the chart repository serves`,
      );
    const spec = apps.find((a) => a.metadata.name === r.name)?.spec;
    const sources = [...(spec?.sources ?? []), ...(spec?.source ? [spec.source] : [])];
    assert.ok(
      sources.some((s) => s.repoURL === `oci://${prefix()}/${c.chart}` && s.targetRevision === c.digest),
      `${r.name}: a source pinned to ${c.chart}@${c.digest} (SEC-9)`,
    );
  }
});

const bundleOf = (message: string): string => /from bundle (\S+);/.exec(message)?.[1] ?? '';

test('a second resolution of the same chart versions (a resnapshot) pushes no chart', async () => {
  const before = bundleOf((await resolvedWith('Resolved=True', planLine, 10_000)).message);
  const mark = await proxyWriteMark();
  await resnapshot();
  const again = await resolvedWith(
    'Resolved=True from the new render',
    (c) => planLine(c) && bundleOf(c.message) !== before,
    120_000,
  );
  assert.equal(planOf(again.message), candidate, 'the same releases give the same plan');
  const bundlePushes = await proxyWritesSince(mark, `${path}/aicr-bundle`);
  assert.ok(
    bundlePushes.some((w) => w.method === 'PUT'),
    'the render pushed its bundle through the proxy, so pushes are seen',
  );
  assert.deepEqual(await proxyWritesSince(mark, path, /\/aicr-bundle\//), [], 'no chart was pushed');
});

test('a chart version the chart repository lacks: Resolved=False ChartUnavailable naming the component, repository, chart and version; no plan; a resnapshot after the fix resolves', async () => {
  const plan = await readPlanNamed(asResolve, candidate);
  const gpu = plan.releases.find((r) => r.name === 'gpu-operator')?.chart;
  assert.ok(gpu);
  await withKnob(hideChartVersion(gpu.chart, gpu.version), async () => {
    await kubectl('delete', 'configmap', '-n', NAMESPACES.system, candidate);
    const c = await resolvedWith('ChartUnavailable', (x) => x.reason === 'ChartUnavailable', 60_000);
    assert.equal(c.status, 'False');
    const repo = testEnv().TESTENV_CHART_REPO;
    assert.ok(
      c.message.startsWith(
        `component gpu-operator: chart repository ${repo} has no chart gpu-operator at version ${gpu.version}. `,
      ),
      c.message,
    );
    assert.match(c.message, /make that version available there .*then request a snapshot$/);
    await waitFor(
      'Stalled=True for ChartUnavailable',
      async () => (condition(await getRuntime(), 'Stalled')?.reason === 'ChartUnavailable' ? true : undefined),
      30_000,
    );
    assert.deepEqual(await plans(), [], 'no plan names a chart the registry cannot get');
  });
  await resnapshot();
  await waitFor(
    'the plan written again',
    async () => ((await plans()).includes(candidate) ? true : undefined),
    120_000,
  );
});

/** Every AICR Job of discovery and resolution, and whether each has ended. */
async function runs(): Promise<string[]> {
  // Each namespace's Jobs as the step that runs them, the one identity allowed to list them.
  const all = await Promise.all(
    [['resolve', NAMESPACES.jobs] as const, ['snapshot', NAMESPACES.discovery] as const].map(([step, namespace]) =>
      stepKube(step).list(KIND.job, { namespace, labelSelector: LABEL.stage }),
    ),
  );
  return all
    .flatMap(
      (l) => l.items as { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[],
    )
    .map(
      (j) =>
        `${j.metadata.name}:${(j.status?.conditions ?? []).some((c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True') ? 'ended' : 'running'}`,
    );
}

/**
 * Resolution has settled and no AICR Job of it still runs (one could push while a knob is on):
 * Resolved names a plan, discovery waits for nothing, no Job runs, and all of that holds a
 * moment later. The moment covers a snapshot the last test asked for landing just now, which
 * makes resolution run again once the step has looked.
 */
async function settled(): Promise<void> {
  const state = async (): Promise<string | undefined> => {
    const rt = await getRuntime();
    const resolved = condition(rt, 'Resolved');
    const waiting = (rt?.status as { discovery?: { snapshot?: { waiting?: string; digest?: string } } } | undefined)
      ?.discovery?.snapshot;
    const jobs = await runs();
    if (!resolved || !planLine(resolved) || waiting?.waiting || jobs.some((j) => j.endsWith(':running')))
      return undefined;
    return JSON.stringify([resolved.message, waiting?.digest ?? '', jobs]);
  };
  await waitFor(
    'resolution settled, with no AICR Job running, for 2 s',
    async () => {
      const first = await state();
      if (!first) return undefined;
      await new Promise((r) => setTimeout(r, 2_000));
      return (await state()) === first ? true : undefined;
    },
    90_000,
  );
}

test('REG-2 the registry refuses the push of an upstream chart (403): Unauthorized naming the chart and registry.repository, no plan; a resnapshot pushes it', async () => {
  await settled();
  const c = (await readPlanNamed(asResolve, candidate)).releases.find((r) => r.name === 'cert-manager')?.chart;
  assert.ok(c);
  const url = `http://${testEnv().TESTENV_REGISTRY}/v2/${path}/${c.chart}/manifests`;
  const digest = (
    await fetch(`${url}/${c.version}`, { method: 'HEAD', headers: { ...basicAuth(), accept: OCI_MANIFEST } })
  ).headers.get('docker-content-digest');
  assert.equal(
    (await fetch(`${url}/${digest ?? ''}`, { method: 'DELETE', headers: basicAuth() })).status,
    202,
    'the chart is taken out of the registry',
  );
  await withKnob(denyRegistry({ scope: 'push' }), async () => {
    await kubectl('delete', 'configmap', '-n', NAMESPACES.system, candidate);
    const u = await resolvedWith('Unauthorized', (x) => x.reason === 'Unauthorized', 60_000);
    assert.ok(
      u.message.startsWith(
        `mirroring ${prefix()}/${c.chart}:${c.version}: registry ${prefix().split('/')[0]} refused access to ${path}/${c.chart} (http 403)`,
      ),
      u.message,
    );
    assert.ok(u.message.includes(`registry.repository=${prefix()}`), u.message);
    assert.deepEqual(await plans(), []);
  });
  await resnapshot();
  await waitFor(
    'the plan written again',
    async () => ((await plans()).includes(candidate) ? true : undefined),
    120_000,
  );
  assert.ok(await manifestAt(`${path}/${c.chart}`, c.version), 'the chart is copied again');
});

test("an unreachable chart repository: Resolved=False Resolving [SERVICE_UNAVAILABLE] with the framework's backoff and no plan; resolves by itself once it answers", async () => {
  await resolvedWith('Resolved=True', planLine, 60_000);
  const from = cp.records().length;
  await withKnob(chartRepoOutage(), async () => {
    await kubectl('delete', 'configmap', '-n', NAMESPACES.system, candidate);
    const c = await resolvedWith(
      'Resolving',
      (x) => x.reason === 'Resolving' && x.message.startsWith('[SERVICE_UNAVAILABLE] mirroring'),
      60_000,
    );
    assert.equal(c.status, 'False');
    assert.match(
      c.message,
      new RegExp(
        `from ${testEnv().TESTENV_CHART_REPO}: chart repository 127\\.0\\.0\\.1:\\d+ did not answer \\(index\\); retrying$`,
      ),
    );
    const retries = (): number[] =>
      cp
        .records()
        .slice(from)
        .filter((r) => r['message'] === 'retry scheduled' && r['step'] === 'resolve')
        .map((r) => Number(r['delayMs']));
    await waitFor(
      'a retry at a doubled delay',
      async () => (retries().some((d) => d > 1.5 * SCALED_TIMINGS.backoffBaseMs) ? true : undefined),
      30_000,
    );
    assert.ok(condition(await getRuntime(), 'Stalled')?.reason !== 'Resolving', 'an outage is progress, not a stall');
    assert.deepEqual(await plans(), []);
  });
  await resolvedWith(
    'Resolved=True again, with nobody acting',
    (c) => planLine(c) && planOf(c.message) === candidate,
    60_000,
  );
});

test("copy times: one upstream chart into an empty prefix, then a re-check of all the plan's upstream charts, which pushes nothing", async (t) => {
  const plan = await readPlanNamed(asResolve, candidate);
  const { TESTENV_REGISTRY: reg, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  const dockerConfig = JSON.stringify({
    auths: { [reg]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } },
  });
  const registry = (repository: string): UpstreamInputs['registry'] => ({
    ...(testConfiguration() as { registry: UpstreamInputs['registry'] }).registry,
    repository,
  });
  const one = plan.releases.filter((r) => r.name === 'cert-manager');
  let started = Date.now();
  const first = await mirrorUpstream({
    registry: registry(`${reg}/${uniqueName('timing')}`),
    dockerConfig,
    recipeText: plan.recipe ?? '',
    releases: one,
  });
  assert.deepEqual(
    first.ok && [first.pushed, first.releases[0]?.chart?.digest],
    [1, one[0]?.chart?.digest],
    'the copy into another prefix is the same manifest, so the same digest',
  );
  t.diagnostic(`first copy of one upstream chart: ${Date.now() - started} ms`);
  const sent: string[] = [];
  const counting: typeof fetch = (input, init) => (sent.push(init?.method ?? 'GET'), fetch(input, init));
  started = Date.now();
  const again = await mirrorUpstream({
    registry: registry(`${reg}/${path}`),
    dockerConfig,
    recipeText: plan.recipe ?? '',
    releases: plan.releases,
    fetch: counting,
  });
  assert.deepEqual(
    again.ok && [again.pushed, again.releases],
    [0, plan.releases],
    'nothing pushed, and the digests the plan recorded',
  );
  t.diagnostic(
    `re-check of the plan's ${plan.releases.filter((r) => r.chart).length} upstream charts: ${Date.now() - started} ms (${sent.length} requests)`,
  );
  assert.ok(!sent.includes('PUT') && !sent.includes('POST'), `nothing is pushed: ${sent.join(', ')}`);
});

// The control plane's own pull of a rendered bundle and push of manifests charts, on the test
// cluster with the real aicr and the real registry behind the registry proxy. One runtime
// resolves once; each test then takes its plan away (as a person deleting it would), so the
// resolve step must pull the bundle and mirror its charts again, and breaks the registry while
// it does: stopped, refusing by policy (403), refusing the credentials (401).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { planToApplications } from '../../shared/plans/applications.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import {
  REGISTRY_SECRET,
  applyConfiguration,
  ensureRegistrySecrets,
  testConfiguration,
} from '../../harness/configuration.ts';
import { testEnv } from '../../harness/env.ts';
import { denyRegistry, stopRegistry, withKnob } from '../helpers/knobs.ts';
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
import { readPlanNamed } from '../helpers/plans.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const asResolve = stepKube('resolve');
let cp: ReturnType<typeof startCapturedControlPlane>;
let candidate = '';

const prefix = (): string => `${testEnv().TESTENV_REGISTRY_PROXY}/aicr`;
const planLine = (c: { status: string; message: string }): boolean =>
  c.status === 'True' && /^plan aicr-plan-/.test(c.message);

function targetPlan(rt: Awaited<ReturnType<typeof getRuntime>>): unknown {
  return (rt?.status as Record<string, unknown> | undefined)?.['targetPlan'];
}

/** Retries the framework scheduled for the resolve step since `from` (its log records). */
function retriesSince(from: number): number[] {
  return cp
    .records()
    .slice(from)
    .filter((r) => r['message'] === 'retry scheduled' && r['step'] === 'resolve')
    .map((r) => Number(r['delayMs']));
}

async function plans(): Promise<string[]> {
  return (
    await asResolve.list(KIND.configMap, { namespace: NAMESPACES.system, labelSelector: `${LABEL.role}=${ROLE.plan}` })
  ).items.map((p) => p.metadata.name);
}

/** Deletes the candidate plan: resolution wakes (the plan watch) and pulls its bundle again. */
async function dropPlan(): Promise<void> {
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, candidate);
}

async function resnapshot(): Promise<void> {
  await kubectl('annotate', 'clusterruntime', 'cluster', `${ANNOTATION.resnapshot}=${Date.now()}`, '--overwrite');
}

/** The bundle the current plan line names. */
const bundleOf = (message: string): string => /from bundle (\S+);/.exec(message)?.[1] ?? '';

/**
 * A resnapshot renders a new bundle. The old one may resolve again first (its refusal cleared),
 * so wait for the plan line naming another bundle: no render is still in flight after this.
 */
async function resolvedAfterResnapshot(): Promise<void> {
  const records = await asResolve.list(KIND.configMap, {
    namespace: NAMESPACES.jobs,
    labelSelector: `${LABEL.stage}=render`,
  });
  const old = new Set(records.items.map((r) => r.data?.['bundle'] ?? ''));
  await resnapshot();
  await resolvedWith('Resolved=True from the new render', (c) => planLine(c) && !old.has(bundleOf(c.message)), 180_000);
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  // Plans of earlier files would be counted below: start with none (a person may delete plans).
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  // Through the proxy, which stands for a registry that can refuse by policy (403).
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, repository: prefix() } });
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const done = await resolvedWith('Resolved=True with a plan', planLine, 180_000);
  candidate = /^plan (aicr-plan-[0-9a-f]+)/.exec(done.message)?.[1] ?? '';
});

after(async () => {
  cp.stop();
  await cp.running;
  await deleteRuntime();
  await ensureRegistrySecrets();
  await applyConfiguration();
});

const candidatePlan = (): Promise<Plan> => readPlanNamed(asResolve, candidate);

/** The digest the registry holds under repository:tag, or its HTTP status when none. */
async function tagDigest(repository: string, tag: string): Promise<string> {
  const { TESTENV_REGISTRY: reg, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  const headers = {
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    accept: 'application/vnd.oci.image.manifest.v1+json',
  };
  const res = await fetch(`http://${reg}/v2/${repository}/manifests/${tag}`, { method: 'HEAD', headers });
  return res.status === 200 ? (res.headers.get('docker-content-digest') ?? '') : `http ${res.status}`;
}

/** Each release's manifests chart: named and pinned by the plan as mirrored, in the registry, and an Application source. */
async function mirroredCharts(plan: Plan): Promise<Map<string, string>> {
  const apps = planToApplications(plan.releases, { runtimeUID: plan.runtimeUID, planDigest: plan.digest });
  const digests = new Map<string, string>();
  for (const r of plan.releases) {
    if (!r.manifests) continue;
    const { chart, version } = r.manifests;
    const digest = await tagDigest(`aicr/${chart}`, version);
    assert.match(digest, /^sha256:/, `${chart}:${version} is in the registry`);
    assert.deepEqual(
      r.manifests,
      { repoURL: prefix(), chart: `${r.name}-manifests`, version, digest },
      'the plan pins the manifest the registry holds (SEC-5)',
    );
    digests.set(chart, digest);
    const spec = apps.find((a) => a.metadata.name === r.name)?.spec;
    const sources = [...(spec?.sources ?? []), ...(spec?.source ? [spec.source] : [])];
    assert.ok(
      sources.some((x) => x.repoURL === `oci://${prefix()}/${chart}` && x.targetRevision === digest),
      `${r.name}: a source pinned to the mirrored chart's digest (SEC-9)`,
    );
  }
  return digests;
}

test('every manifests chart of the resolved plan is in the registry at its version, and the Applications point at it; with pushes denied, a second resolution still resolves: nothing is pushed', async () => {
  const digests = await mirroredCharts(await candidatePlan());
  assert.ok(digests.size >= 2, 'the training recipe has components with raw manifests');
  await withKnob(denyRegistry({ scope: 'push' }), async () => {
    await dropPlan();
    await waitFor(
      'the plan written again while pushes are refused',
      async () => ((await plans()).includes(candidate) ? true : undefined),
      60_000,
    );
  });
  assert.ok(planLine(await resolvedWith('Resolved=True', planLine, 10_000)));
  assert.deepEqual(await mirroredCharts(await candidatePlan()), digests, 'the same charts, at the same digests');
});

test("REG-1 registry unreachable during the control plane's own pull: Resolved=False Resolving [SERVICE_UNAVAILABLE], retried with backoff, resumes by itself", async () => {
  const from = cp.records().length;
  await withKnob(stopRegistry(), async () => {
    await dropPlan();
    const c = await resolvedWith('Resolving with SERVICE_UNAVAILABLE', (x) => x.reason === 'Resolving', 60_000);
    assert.equal(c.status, 'False');
    assert.match(
      c.message,
      new RegExp(
        `^\\[SERVICE_UNAVAILABLE\\] pulling bundle ${prefix().replace(/\./g, '\\.')}/aicr-bundle:[0-9a-f]{16}@sha256:[0-9a-f]{64}: registry \\S+ failed \\(http 502\\)`,
      ),
    );
    // Another condition (a rollout awaiting approval, say) may stall the runtime; the outage must not.
    const stalled = condition(await getRuntime(), 'Stalled');
    assert.ok(stalled?.status !== 'True' || stalled.reason !== c.reason, 'an outage is progress, not a stall');
    // The framework's backoff (scaled in tests: 1 s doubling to a 4 s cap), not a fixed recheck.
    // Each wake starts at the first attempt; a chain of retries reaches the doubled delays.
    const grown = (d: number[]): boolean => d.some((x) => x > 1.5 * SCALED_TIMINGS.backoffBaseMs);
    const delays = await waitFor(
      'a retry at a doubled delay',
      async () => (grown(retriesSince(from)) ? retriesSince(from) : undefined),
      30_000,
    );
    assert.ok(delays.every((d) => d <= SCALED_TIMINGS.backoffCapMs));
    assert.deepEqual(await plans(), [], 'nothing is written while the registry is away');
    assert.equal(targetPlan(await getRuntime()), candidate, 'the target stays');
  });
  const back = await resolvedWith('Resolved=True again, with nobody acting', planLine, 60_000);
  assert.match(back.message, new RegExp(`^plan ${candidate} `), 'the same bundle gives the same plan');
  assert.deepEqual(await plans(), [candidate]);
});

test('FLT-2 REG-1 a registry outage as long as 30 minutes at the real backoff (scaled: twelve retries, six of them at the cap, where the old limit dead-lettered at attempt 8) ends by itself: nothing dead-lettered, nothing written meanwhile, the same plan once it is back', async () => {
  const from = cp.records().length;
  const retries = (): { attempt: number; delayMs: number }[] =>
    cp
      .records()
      .slice(from)
      .filter((r) => r['message'] === 'retry scheduled' && r['step'] === 'resolve')
      .map((r) => ({ attempt: Number(r['attempt']), delayMs: Number(r['delayMs']) }));
  await withKnob(stopRegistry(), async () => {
    await dropPlan();
    // At the real timings (10 s doubling to 5 min) attempt 12 comes about 30 minutes in.
    const seen = await waitFor(
      'the twelfth attempt',
      async () => (retries().some((r) => r.attempt >= 12) ? retries() : undefined),
      120_000,
    );
    // The cap, less its jitter.
    assert.ok(
      seen.filter((r) => r.delayMs > 0.8 * SCALED_TIMINGS.backoffCapMs).length >= 6,
      `six retries at the cap: ${JSON.stringify(seen)}`,
    );
    assert.deepEqual(await plans(), [], 'nothing is written while the registry is away');
  });
  const back = await resolvedWith('Resolved=True again, with nobody acting', planLine, 60_000);
  assert.match(back.message, new RegExp(`^plan ${candidate} `));
  assert.deepEqual(
    cp
      .records()
      .slice(from)
      .filter((r) => r['message'] === 'message dead-lettered after its last delivery'),
    [],
    'nothing dead-lettered',
  );
});

test('REG-2 the registry proxy refuses the pull (403): Unauthorized naming the repository prefix, stalled; a resnapshot resolves again', async () => {
  await withKnob(denyRegistry({ scope: 'pull' }), async () => {
    await dropPlan();
    const c = await resolvedWith('Unauthorized', (x) => x.reason === 'Unauthorized', 60_000);
    assert.equal(c.status, 'False');
    assert.match(c.message, /refused access to aicr\/aicr-bundle \(http 403\)/);
    assert.ok(c.message.includes(`registry.repository=${prefix()}`), c.message);
    await waitFor('Stalled=True for Unauthorized', async () => {
      const s = condition(await getRuntime(), 'Stalled');
      return s?.status === 'True' && s.reason === 'Unauthorized' ? true : undefined;
    });
  });
  // The denial is gone, yet nothing retries by itself: a refusal waits for a person.
  const from = cp.records().length;
  await new Promise((r) => setTimeout(r, 3 * SCALED_TIMINGS.backoffCapMs));
  assert.equal(condition(await getRuntime(), 'Resolved')?.reason, 'Unauthorized');
  assert.deepEqual(retriesSince(from), []);
  await resolvedAfterResnapshot();
});

test("REG-2 the registry refuses the control plane's credentials (401): Unauthorized naming the repository prefix; fixed credentials and a resnapshot resolve again", async () => {
  const auth = Buffer.from(`${testEnv().TESTENV_REGISTRY_USER}:not-the-password`).toString('base64');
  const wrong = JSON.stringify({ auths: { [testEnv().TESTENV_REGISTRY_PROXY]: { auth } } });
  // Only the control plane's copy is wrong; the render Jobs' copy in aicr-jobs still pushes.
  await kubectl('delete', 'secret', REGISTRY_SECRET, '-n', NAMESPACES.system);
  await kubectl(
    'create',
    'secret',
    'generic',
    REGISTRY_SECRET,
    '-n',
    NAMESPACES.system,
    '--type=kubernetes.io/dockerconfigjson',
    `--from-literal=.dockerconfigjson=${wrong}`,
  );
  try {
    await dropPlan();
    const c = await resolvedWith('Unauthorized', (x) => x.reason === 'Unauthorized', 60_000);
    assert.match(c.message, /refused access to aicr\/aicr-bundle \(http 401\): check the registry credentials/);
    assert.ok(c.message.includes(`registry.repository=${prefix()}`), c.message);
    assert.doesNotMatch(c.message, /not-the-password/);
  } finally {
    await ensureRegistrySecrets();
  }
  await resolvedAfterResnapshot();
});

// Last: the resnapshot below starts a new snapshot, recipe and render that later tests would meet.
test('REG-2 the registry refuses the push of a manifests chart (403): Unauthorized naming the chart and the repository prefix; a resnapshot pushes it', async () => {
  const release = (await candidatePlan()).releases.find((r) => r.manifests);
  assert.ok(release?.manifests);
  const { chart, version } = release.manifests;
  const { TESTENV_REGISTRY: reg, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  const gone = await fetch(`http://${reg}/v2/aicr/${chart}/manifests/${await tagDigest(`aicr/${chart}`, version)}`, {
    method: 'DELETE',
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` },
  });
  assert.equal(gone.status, 202, 'the chart is taken out of the registry');
  await withKnob(denyRegistry({ scope: 'push' }), async () => {
    await dropPlan();
    const c = await resolvedWith('Unauthorized', (x) => x.reason === 'Unauthorized', 60_000);
    assert.ok(
      c.message.startsWith(
        `mirroring ${prefix()}/${chart}:${version}: registry ${prefix().split('/')[0]} refused access to aicr/${chart} (http 403)`,
      ),
      c.message,
    );
    assert.ok(c.message.includes(`registry.repository=${prefix()}`), c.message);
    assert.deepEqual(await plans(), [], 'no plan names a chart the registry lacks');
  });
  await resnapshot();
  await waitFor(
    'the plan written again',
    async () => ((await plans()).includes(candidate) ? true : undefined),
    180_000,
  );
  assert.match(await tagDigest(`aicr/${chart}`, version), /^sha256:/, 'the chart is pushed again');
});

// Registry credentials (REG-3) on the test cluster with the real aicr, the real registry and
// moto for ECR. static: the Secret registry.auth.staticSecretRef names must be in aicr-system and
// in the Job namespaces; each namespace that lacks it is named, and resolution goes on by itself
// once it is there. aws: the control plane mints an ECR token (moto), gives the render Job a
// docker config with it in aicr-jobs, and pulls with it; a failed mint stalls, retrying, until
// minting works again. The registry accepts moto's token (test/helpers/ecrRegistry.ts says how).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANNOTATION,
  DOCKER_CONFIG_KEY,
  IDENTITY_USER,
  LABEL,
  NAMESPACES,
  REGISTRY_JOB_SECRET,
} from '../../shared/api/constants.ts';
import { type AuditEvent, auditMark, controlPlaneEventsSince } from '../../harness/audit.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import {
  REGISTRY_SECRET,
  applyConfiguration,
  ensureRegistrySecrets,
  testConfiguration,
} from '../../harness/configuration.ts';
import { acceptMotoEcrTokens, motoEcrCredential, refuseAwsCalls } from '../helpers/ecrRegistry.ts';
import { DescribeRepositoriesCommand, ECRClient } from '@aws-sdk/client-ecr';
import { awsClientConfig, resetMoto, testEnv } from '../../harness/env.ts';
import { withKnob } from '../helpers/knobs.ts';
import { readPlanNamed } from '../helpers/plans.ts';
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
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

const planLine = (c: { status: string; message: string }): boolean =>
  c.status === 'True' && /^plan aicr-plan-/.test(c.message);

function start(): ReturnType<typeof startCapturedControlPlane> {
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
  return cp;
}

async function stop(): Promise<void> {
  cp?.stop();
  await cp?.running;
  cp = undefined;
}

function retriesSince(from: number): number {
  return (cp?.records() ?? []).slice(from).filter((r) => r['message'] === 'retry scheduled' && r['step'] === 'resolve')
    .length;
}

async function awsMode(): Promise<void> {
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, auth: { mode: 'aws' } } });
}

async function renderJobSecrets(): Promise<string[]> {
  const jobs = await asResolve.list(KIND.job, { namespace: NAMESPACES.jobs, labelSelector: `${LABEL.stage}=render` });
  return jobs.items.flatMap((j) =>
    (
      (j.spec as { template?: { spec?: { volumes?: { secret?: { secretName?: string } }[] } } }).template?.spec
        ?.volumes ?? []
    ).flatMap((v) => (v.secret?.secretName ? [v.secret.secretName] : [])),
  );
}

before(async () => {
  await ensureCrds();
});
beforeEach(async () => {
  await stop();
  await deleteRuntime();
  await ensureRegistrySecrets();
  await applyConfiguration();
  await kubectl('delete', 'jobs', '-n', NAMESPACES.jobs, '--all', '--wait=true');
  await kubectl('delete', 'secret', REGISTRY_JOB_SECRET, '-n', NAMESPACES.jobs, '--ignore-not-found');
});
after(async () => {
  await stop();
  await deleteRuntime();
  await ensureRegistrySecrets();
  await applyConfiguration();
});

test('REG-3 static: the Secret missing in aicr-jobs and aicr-validation is RegistryCredentialsUnavailable naming both; stalled but retrying; resolves by itself once it is there', async () => {
  for (const ns of [NAMESPACES.jobs, NAMESPACES.validation])
    await kubectl('delete', 'secret', REGISTRY_SECRET, '-n', ns);
  const cp = start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith(
    'RegistryCredentialsUnavailable',
    (x) => x.reason === 'RegistryCredentialsUnavailable',
    90_000,
  );
  assert.equal(c.status, 'False');
  assert.equal(
    c.message,
    `registry.auth.mode static: the docker-config Secret ${REGISTRY_SECRET} (registry.auth.staticSecretRef) is missing in aicr-jobs, aicr-validation; create it there (type kubernetes.io/dockerconfigjson)`,
  );
  await waitFor(`Stalled=True for ${c.reason}`, async () => {
    const s = condition(await getRuntime(), 'Stalled');
    return s?.status === 'True' && s.reason === c.reason ? true : undefined;
  });
  const from = cp.records().length;
  await waitFor('two more retries', async () => (retriesSince(from) >= 2 ? true : undefined), 30_000);
  assert.deepEqual(await renderJobSecrets(), [], 'no render runs without its credentials');
  await ensureRegistrySecrets();
  await resolvedWith('Resolved=True, with nobody acting', planLine, 180_000);
});

test('REG-3 static: the Secret missing in aicr-system, or without its key, is named with the namespace', async () => {
  await kubectl('delete', 'secret', REGISTRY_SECRET, '-n', NAMESPACES.system);
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const c = await resolvedWith(
    'RegistryCredentialsUnavailable',
    (x) => x.reason === 'RegistryCredentialsUnavailable',
    90_000,
  );
  assert.match(c.message, /is missing in aicr-system;/);
  await kubectl(
    'create',
    'secret',
    'generic',
    REGISTRY_SECRET,
    '-n',
    NAMESPACES.system,
    '--from-literal=config.json={}',
  );
  await resolvedWith(
    'the key named',
    (x) => x.message.includes(`Secret aicr-system/${REGISTRY_SECRET} has no ${DOCKER_CONFIG_KEY} key`),
    30_000,
  );
  await kubectl('delete', 'secret', REGISTRY_SECRET, '-n', NAMESPACES.system);
  await ensureRegistrySecrets();
  await resolvedWith('Resolved=True, with nobody acting', planLine, 180_000);
});

/** The resolve step's reads of the registry Secret, by namespace, and the render Jobs it created. */
function resolveRegistryWork(events: readonly AuditEvent[]): { secretReads: string[]; renderJobs: number } {
  const byResolve = events.filter((e) => e.impersonatedUser?.username === IDENTITY_USER.step('resolve'));
  return {
    secretReads: byResolve
      .filter((e) => e.verb === 'get' && e.objectRef?.resource === 'secrets' && e.objectRef.name === REGISTRY_SECRET)
      .map((e) => e.objectRef?.namespace ?? '')
      .sort(),
    renderJobs: byResolve.filter(
      (e) => e.verb === 'create' && e.objectRef?.resource === 'jobs' && /^aicr-render-/.test(e.objectRef.name ?? ''),
    ).length,
  };
}

test("REG-3 static: the registry Secrets are read when a render Job is created (the control plane's and the Jobs', not validation's while nothing is missing) and when a bundle is pulled (the control plane's); a look that finds its plan recorded reads none", async () => {
  start();
  const created = auditMark();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  await resolvedWith('Resolved=True', planLine, 180_000);
  const first = resolveRegistryWork(await controlPlaneEventsSince(created));
  assert.ok(first.renderJobs >= 1, 'a render Job was created');
  const count = (ns: string): number => first.secretReads.filter((n) => n === ns).length;
  assert.equal(count(NAMESPACES.jobs), first.renderJobs, "the Jobs' copy is read once per render Job created");
  assert.equal(count(NAMESPACES.validation), 0, "validation's only to name every missing copy, and none is missing");
  assert.equal(count(NAMESPACES.system), first.renderJobs + 1, "the control plane's, once more for the bundle's pull");

  // A new actionTimeout is a new generation that leaves every input of recipe and render as it was.
  const looked = auditMark();
  const generation = (await getRuntime())?.metadata.generation ?? 0;
  await kubectl('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"actionTimeout":"31m"}}');
  await waitFor('Resolved for the new generation', async () => {
    const c = condition(await getRuntime(), 'Resolved');
    return c?.status === 'True' && (c.observedGeneration ?? 0) > generation ? true : undefined;
  });
  assert.deepEqual(resolveRegistryWork(await controlPlaneEventsSince(looked)), { secretReads: [], renderJobs: 0 });
});

/** Polls the render Jobs' Secret volumes until stopped (a successful Job is deleted once read). */
function watchRenderSecrets(): { stop: () => Promise<Set<string>> } {
  const seen = new Set<string>();
  let on = true;
  const loop = (async () => {
    while (on) {
      for (const name of await renderJobSecrets()) seen.add(name);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { stop: async () => ((on = false), await loop, seen) };
}

test('REG-3 REG-2 aws: the control plane mints an ECR token, creates the repositories it pushes to, the render Job pushes with it from a Secret in aicr-jobs, and the pull uses it', async () => {
  await awsMode();
  await resetMoto();
  // Nothing static to fall back on, and a render that must run (not one recorded earlier).
  for (const ns of [NAMESPACES.system, NAMESPACES.jobs, NAMESPACES.validation])
    await kubectl('delete', 'secret', REGISTRY_SECRET, '-n', ns);
  await kubectl('delete', 'configmaps', '-n', NAMESPACES.jobs, '-l', `${LABEL.stage}=render`);
  await withKnob(acceptMotoEcrTokens(), async () => {
    const watch = watchRenderSecrets();
    start();
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    await resolvedWith('Resolved=True with a plan', planLine, 180_000);
    assert.deepEqual(
      [...(await watch.stop())],
      [REGISTRY_JOB_SECRET],
      'the render Job mounted the minted docker config',
    );
    const secret = await asResolve.get(KIND.secret, REGISTRY_JOB_SECRET, NAMESPACES.jobs);
    assert.ok(secret, `${REGISTRY_JOB_SECRET} is in aicr-jobs`);
    const config = JSON.parse(
      Buffer.from((secret as { data?: Record<string, string> }).data?.[DOCKER_CONFIG_KEY] ?? '', 'base64').toString(
        'utf8',
      ),
    ) as { auths: Record<string, { auth: string }> };
    const { user, password } = await motoEcrCredential();
    assert.deepEqual(config, {
      auths: { [testEnv().TESTENV_REGISTRY]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } },
    });
    assert.ok(secret.metadata.annotations?.[ANNOTATION.tokenExpiresAt], 'the token expiry is recorded');
    // ECR makes no repository on push: resolution created each one it pushes to, under the prefix only.
    const ecr = new ECRClient(awsClientConfig());
    const names = ((await ecr.send(new DescribeRepositoriesCommand({}))).repositories ?? [])
      .map((r) => r.repositoryName ?? '')
      .sort();
    const plan = await readPlanNamed(asResolve, String((await getRuntime())?.status?.candidatePlan ?? ''));
    const expected = [
      'aicr/aicr-bundle',
      ...plan.releases
        .flatMap((r) => [r.chart?.chart, r.manifests?.chart])
        .filter((c): c is string => c !== undefined)
        .map((c) => `aicr/${c}`),
    ];
    assert.deepEqual(names, [...new Set(expected)].sort());
  });
});

test('REG-3 aws: minting that fails in moto is RegistryCredentialsUnavailable, stalled but retrying; it clears by itself once minting works', async () => {
  await awsMode();
  await withKnob(acceptMotoEcrTokens(), async () => {
    const refused = await refuseAwsCalls();
    try {
      const cp = start();
      await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
      const c = await resolvedWith(
        'RegistryCredentialsUnavailable',
        (x) => x.reason === 'RegistryCredentialsUnavailable',
        90_000,
      );
      assert.match(
        c.message,
        /^registry\.auth\.mode aws: minting an ECR token failed \(.*http 403\); check the control plane's AWS identity .* ecr:GetAuthorizationToken$/,
      );
      await waitFor(`Stalled=True for ${c.reason}`, async () => {
        const s = condition(await getRuntime(), 'Stalled');
        return s?.status === 'True' && s.reason === c.reason ? true : undefined;
      });
      const from = cp.records().length;
      await waitFor('two more retries', async () => (retriesSince(from) >= 2 ? true : undefined), 30_000);
    } finally {
      await refused.undo();
    }
    await resolvedWith('Resolved=True, with nobody acting', planLine, 180_000);
  });
});

// Argo CD's registry credentials (REG-4, REG-5) on the test cluster with moto for ECR. In aws
// mode the token-refresh step, under its own identity, writes the repository Secret
// argocd/aicr-registry with moto's token and its expiry; writes it again when it is deleted or
// edited and when a person asks; never touches one it did not create; writes nothing in static
// mode; and backs off after failed mints. The rollout step reports RegistryCredentialsStale while
// the token is missing or about to expire. No token reaches a log line or an Event.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANNOTATION,
  ARGOCD,
  ARGOCD_REGISTRY_SECRET,
  FIELD_MANAGER,
  LABEL,
  MANAGED_BY_VALUE,
  TOKEN_EXPIRY_METRIC,
} from '../../shared/api/constants.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { applyConfiguration, ensureArgoCdRepoCreds, testConfiguration } from '../../harness/configuration.ts';
import { motoEcrCredential, refuseAwsCalls } from '../helpers/ecrRegistry.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { runbook } from '../helpers/runbook.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

const { name: SECRET, namespace: NS } = ARGOCD_REGISTRY_SECRET;
const TOKEN_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'token-refresh');
const ROLLOUT_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout');
const SPEC = {
  aicrVersion: 'v0.11.1',
  criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
};
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface SecretJson {
  metadata: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: { manager: string }[];
    resourceVersion: string;
  };
  data?: Record<string, string>;
}

let cp: ReturnType<typeof startCapturedControlPlane> | undefined;
/** Every log line of the runs in this file, for the scan at the end. */
const linesSeen: string[] = [];

function start(table = TOKEN_ONLY, timings = SCALED_TIMINGS): ReturnType<typeof startCapturedControlPlane> {
  cp = startCapturedControlPlane({ timings, table });
  return cp;
}

async function stop(): Promise<void> {
  if (cp) linesSeen.push(...cp.lines);
  cp?.stop();
  await cp?.running;
  cp = undefined;
}

async function awsMode(): Promise<void> {
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, auth: { mode: 'aws' } } });
}

async function readSecret(): Promise<SecretJson | undefined> {
  const out = await kubectl(
    'get',
    'secret',
    SECRET,
    '-n',
    NS,
    '-o',
    'json',
    '--show-managed-fields',
    '--ignore-not-found',
  );
  return out.trim() === '' ? undefined : (JSON.parse(out) as SecretJson);
}

const plain = (s: SecretJson, key: string): string => Buffer.from(s.data?.[key] ?? '', 'base64').toString('utf8');
const ours = (s: SecretJson | undefined): s is SecretJson =>
  s?.metadata.managedFields?.some((m) => m.manager === FIELD_MANAGER.tokenRefresh) ?? false;

/** The Secret once the step has written it with a resourceVersion other than `than`. */
async function writtenSecret(than = ''): Promise<SecretJson> {
  return waitFor(
    'the token-refresh step writes the Secret',
    async () => {
      const s = await readSecret();
      return ours(s) && s.metadata.resourceVersion !== than && plain(s, 'password') !== 'edited-by-hand'
        ? s
        : undefined;
    },
    30_000,
  );
}

before(async () => {
  await ensureCrds();
});
beforeEach(async () => {
  await stop();
  await deleteRuntime();
  await kubectl('delete', 'secret', SECRET, '-n', NS, '--ignore-not-found');
  await awsMode();
});
after(async () => {
  await stop();
  await deleteRuntime();
  await applyConfiguration();
  await kubectl('delete', 'secret', SECRET, '-n', NS, '--ignore-not-found');
  await ensureArgoCdRepoCreds();
});

test("REG-4 COND-5 aws: at start the token-refresh step writes Argo CD's repository Secret with moto's token, the URL the Applications use and the expiry, which the runbook's jsonpath command prints", async () => {
  start();
  await createRuntime(SPEC);
  const s = await writtenSecret();
  const { user, password } = await motoEcrCredential();
  assert.equal(s.metadata.labels?.[ARGOCD.secretTypeLabel], ARGOCD.repoCredsSecretType);
  assert.equal(s.metadata.labels?.[LABEL.managedBy], MANAGED_BY_VALUE);
  assert.equal(
    plain(s, 'url'),
    `oci://${(testConfiguration() as { registry: { repository: string } }).registry.repository}`,
    'SEC-9: a credential template for every chart source under registry.repository',
  );
  assert.deepEqual(
    [plain(s, 'type'), plain(s, 'username'), plain(s, 'password')],
    [ARGOCD.ociCredentialType, user, password],
  );
  const expiry = s.metadata.annotations?.[ANNOTATION.tokenExpiresAt] ?? '';
  assert.match(expiry, RFC3339);
  assert.ok(Date.parse(expiry) > Date.now() + 3_600_000, 'the token outlives the stale window');
  const shown = await runbook(`kubectl -n argocd get secret aicr-registry \\
  -o jsonpath='{.metadata.annotations.operator\\.aicr\\.run/token-expires-at}'`);
  assert.deepEqual(
    [shown.code, shown.stdout],
    [0, expiry],
    `COND-5: the runbook's expiry command prints it (${shown.stderr})`,
  );
  const refreshed = cp?.records().find((r) => r['message'] === 'registry credentials refreshed');
  assert.equal(refreshed?.['expiresAt'], expiry);
  const metric = cp?.records().find((r) => r['message'] === 'metric' && TOKEN_EXPIRY_METRIC in r);
  assert.equal(
    metric?.[TOKEN_EXPIRY_METRIC],
    Math.floor(Date.parse(expiry) / 1000),
    'the metric carries the same expiry as a Unix time',
  );
  assert.deepEqual((metric?.['_aws'] as { CloudWatchMetrics?: unknown } | undefined)?.CloudWatchMetrics, [
    {
      Namespace: 'aicr-control-plane',
      Dimensions: [['service']],
      Metrics: [{ Name: TOKEN_EXPIRY_METRIC, Unit: 'Seconds' }],
    },
  ]);
  assert.ok(!cp?.lines.some((l) => l.includes(password)), 'the token is in no log line');
});

test('REG-4 aws: the Secret deleted or edited by hand is written again by itself', async () => {
  start();
  await createRuntime(SPEC);
  const first = await writtenSecret();
  await kubectl('delete', 'secret', SECRET, '-n', NS);
  const again = await writtenSecret();
  assert.notEqual(again.metadata.resourceVersion, first.metadata.resourceVersion);
  await kubectl(
    'patch',
    'secret',
    SECRET,
    '-n',
    NS,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ stringData: { password: 'edited-by-hand' } }),
  );
  const restored = await writtenSecret(again.metadata.resourceVersion);
  assert.equal(plain(restored, 'password'), (await motoEcrCredential()).password);
});

test('REG-4 aws: a Secret of that name the control plane did not create is left alone, with the reason logged', async () => {
  await kubectl(
    'create',
    'secret',
    'generic',
    SECRET,
    '-n',
    NS,
    '--from-literal=url=example.invalid/other',
    '--from-literal=password=someone-elses',
  );
  const cp = start();
  await createRuntime(SPEC);
  const line = await waitFor(
    'the refusal is logged',
    async () => cp.records().find((r) => r['message'] === 'registry credentials not written'),
    30_000,
  );
  assert.match(String(line['why']), /the control plane did not create it .* delete it to let the control plane write/);
  const s = await readSecret();
  assert.ok(s && !ours(s), "still the person's Secret");
  assert.equal(plain(s, 'password'), 'someone-elses');
});

test('REG-4 static: the token-refresh step writes nothing', async () => {
  await applyConfiguration();
  const cp = start();
  await createRuntime(SPEC);
  await waitFor(
    'the step ran',
    async () =>
      cp
        .records()
        .some((r) => r['step'] === 'token-refresh' && r['message'] === 'registry credentials not written here')
        ? true
        : undefined,
    30_000,
  );
  assert.equal(await readSecret(), undefined);
});

test('REG-4 aws: failed refreshes are logged and retried with growing backoff up to the cap, until minting works', async () => {
  const refused = await refuseAwsCalls();
  try {
    const cp = start();
    await createRuntime(SPEC);
    const retries = (): Record<string, unknown>[] =>
      cp.records().filter((r) => r['message'] === 'retry scheduled' && r['step'] === 'token-refresh');
    await waitFor('four retries', async () => (retries().length >= 4 ? true : undefined), 60_000);
    const delays = retries().map((r) => Number(r['delayMs']));
    const full = [1_000, 2_000, 4_000, 4_000];
    delays
      .slice(0, 4)
      .forEach((d, i) => assert.ok(d <= (full[i] ?? 0) && d >= 0.9 * (full[i] ?? 0), `retry ${i + 1} after ${d} ms`));
    const failures = cp.records().filter((r) => r['message'] === 'registry token refresh failed');
    assert.ok(failures.length >= 4, 'every failure is logged');
    assert.match(String(failures[0]?.['cause']), /http 403/);
    assert.equal(await readSecret(), undefined);
  } finally {
    await refused.undo();
  }
  await writtenSecret();
});

test('REG-4 aws: the step refreshes by itself every interval through its own timer, once per interval however often it is woken', async () => {
  const cp = start(TOKEN_ONLY, { ...SCALED_TIMINGS, tokenRefreshIntervalMs: 3_000, tokenStaleWithinMs: 1_000 });
  await createRuntime(SPEC);
  await writtenSecret();
  const refreshes = (): Record<string, unknown>[] =>
    cp.records().filter((r) => r['message'] === 'registry credentials refreshed' && r['reason'] === 'interval');
  // Wakes that are not the timer: each must find the Secret fresh and arm no second timer.
  for (let i = 0; i < 3; i++)
    await kubectl('annotate', 'clusterruntime', 'cluster', `example.com/nudge=${i}`, '--overwrite');
  await waitFor('three refreshes by the timer', async () => (refreshes().length >= 3 ? true : undefined), 30_000);
  const times = refreshes().map((r) => Date.parse(String(r['timestamp'])));
  for (let i = 1; i < times.length; i++)
    assert.ok(
      (times[i] ?? 0) - (times[i - 1] ?? 0) >= 2_500,
      `refresh ${i + 1} came ${(times[i] ?? 0) - (times[i - 1] ?? 0)} ms after the one before`,
    );
});

test('REG-5 kubectl aicr refresh-credentials mints a new token at once and waits until it is written', async () => {
  start();
  await createRuntime(SPEC);
  const first = await writtenSecret();
  const run = await kubectlAicr(['refresh-credentials', '--timeout', '30s']);
  assert.equal(run.code, 0, run.stderr);
  const again = await readSecret();
  assert.ok(again && again.metadata.resourceVersion !== first.metadata.resourceVersion, 'written again');
  const request = again.metadata.annotations?.[ANNOTATION.refreshAnswered] ?? '';
  assert.equal(
    (await getRuntime())?.metadata.annotations?.[ANNOTATION.refreshCredentials],
    request,
    'the request the command recorded is the one answered',
  );
  assert.equal(
    run.stdout.trim(),
    `Argo CD's registry credentials (Secret argocd/aicr-registry) refreshed: the new token expires at ${again.metadata.annotations?.[ANNOTATION.tokenExpiresAt] ?? ''}`,
  );
  assert.ok(
    Date.parse(again.metadata.annotations?.[ANNOTATION.tokenRefreshedAt] ?? '') >
      Date.parse(first.metadata.annotations?.[ANNOTATION.tokenRefreshedAt] ?? ''),
  );
});

async function engineWith(reason: string, timeoutMs = 30_000): Promise<{ status: string; message: string }> {
  return waitFor(
    `EngineAvailable ${reason}`,
    async () => {
      const c = condition(await getRuntime(), 'EngineAvailable');
      return c?.reason === reason ? c : undefined;
    },
    timeoutMs,
  );
}

test('REG-4 aws: a token expiring within the hour, or none, makes EngineAvailable False with RegistryCredentialsStale; a change to the Secret is looked at at once', async () => {
  // The runbook's 30 s recheck: well past the waits below, so only the Secret's watch can explain them.
  start(ROLLOUT_ONLY, SCALED_TIMINGS);
  await createRuntime(SPEC);
  const none = await engineWith('RegistryCredentialsStale');
  assert.equal(none.status, 'False');
  assert.match(
    none.message,
    /registry credentials \(Secret argocd\/aicr-registry\) are missing, so no rollout or rollout step starts/,
  );
  const soon = new Date(Date.now() + 30 * 60_000).toISOString();
  await kubectl('create', 'secret', 'generic', SECRET, '-n', NS, '--from-literal=password=x');
  await kubectl('annotate', 'secret', SECRET, '-n', NS, `${ANNOTATION.tokenExpiresAt}=${soon}`);
  await waitFor(
    'the expiry named',
    async () => (condition(await getRuntime(), 'EngineAvailable')?.message.includes(soon) ? true : undefined),
    10_000,
  );
  await kubectl(
    'annotate',
    'secret',
    SECRET,
    '-n',
    NS,
    `${ANNOTATION.tokenExpiresAt}=${new Date(Date.now() + 6 * 3_600_000).toISOString()}`,
    '--overwrite',
  );
  assert.equal((await engineWith('EngineReady', 10_000)).status, 'True');
});

test('REG-5 kubectl aicr refresh-credentials in static mode says nothing was written, and fails', async () => {
  await applyConfiguration();
  start();
  await createRuntime(SPEC);
  const run = await kubectlAicr(['refresh-credentials', '--timeout', '3s']);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /has not written Secret argocd\/aicr-registry for it \(in registry\.auth\.mode static/);
});

test('REG-4 aws with the EKS Argo CD capability (argocd.mode managed): nothing is written, an existing Secret is left alone, and EngineAvailable says AWS handles the credentials', async () => {
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({
    ...cfg,
    registry: { ...cfg.registry, auth: { mode: 'aws' } },
    argocd: { mode: 'managed' },
  });
  await kubectl('create', 'secret', 'generic', SECRET, '-n', NS, '--from-literal=password=someone-elses');
  const before = await readSecret();
  start(
    STEP_TABLE.filter((r) => r.name === 'token-refresh' || r.name === 'rollout'),
    { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
  );
  await createRuntime(SPEC);
  const c = await engineWith('EngineReady');
  assert.match(c.message, /registry credentials are handled by AWS .* so the control plane writes none$/);
  await waitFor(
    'the token-refresh step ran',
    async () =>
      cp
        ?.records()
        .some(
          (r) => r['step'] === 'token-refresh' && String(r['why']).includes('registry credentials are handled by AWS'),
        )
        ? true
        : undefined,
    30_000,
  );
  assert.equal(
    (await readSecret())?.metadata.resourceVersion,
    before?.metadata.resourceVersion,
    'the Secret is as it was',
  );
});

test('REG-4 no log line of these runs and no Event in the cluster holds the token', async () => {
  await stop();
  const { password } = await motoEcrCredential();
  assert.ok(linesSeen.length > 0, 'the runs logged');
  assert.deepEqual(
    linesSeen.filter((l) => l.includes(password)),
    [],
  );
  const events = await kubectl('get', 'events', '-A', '-o', 'json');
  assert.ok(
    !events.includes(password) && !events.includes(Buffer.from(password).toString('base64')),
    'no Event holds the token',
  );
});

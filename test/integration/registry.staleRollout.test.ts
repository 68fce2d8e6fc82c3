// Stale registry credentials in the middle of a rollout (REG-4), on the test cluster with the
// Argo CD's own controller, which fetches the charts with the repository Secret
// argocd/aicr-registry. In aws mode the rollout step reads the token's expiry from that Secret:
// once it is within the hour, EngineAvailable turns False with RegistryCredentialsStale and the
// next release is not written even after Argo CD reported the one in flight done; a fresh expiry
// lets the rollout finish by itself. Only the rollout step runs, so the Secret stays as the test
// writes it (the token-refresh step is covered by registry.tokenRefresh.test.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, ARGOCD_REGISTRY_SECRET, CONDITION } from '../../shared/api/constants.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, auditSince, settleAudit } from '../../harness/audit.ts';
import { applyConfiguration, ensureArgoCdRepoCreds, testConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { type Knob, holdReleasePods, withKnob } from '../helpers/knobs.ts';
import { acceptMotoEcrTokens } from '../helpers/ecrRegistry.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import { clearApplications, grantUsers, released, rollout } from '../../harness/rollouts.ts';
import { METRIC } from '../../shared/observability/metrics.ts';
import { assertDeclared, metricLines } from '../helpers/metrics.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

const ROLLOUT_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout');
const { name: SECRET, namespace: NS } = ARGOCD_REGISTRY_SECRET;
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;
let runtimeUID = '';

async function expiresIn(ms: number): Promise<string> {
  const at = new Date(Date.now() + ms).toISOString();
  await kubectl('annotate', 'secret', SECRET, '-n', NS, `${ANNOTATION.tokenExpiresAt}=${at}`, '--overwrite');
  return at;
}

async function engine(reason: string): Promise<{ status: string; message: string }> {
  return waitFor(
    `EngineAvailable ${reason}`,
    async () => {
      const c = condition(await getRuntime(), CONDITION.engineAvailable);
      return c?.reason === reason ? c : undefined;
    },
    30_000,
  );
}

const bravoWrites = (events: readonly AuditEvent[]): AuditEvent[] =>
  events.filter(
    (e) =>
      e.impersonatedUser?.username === 'aicr-step-rollout' &&
      e.objectRef?.resource === 'applications' &&
      e.objectRef.name === 'bravo' &&
      ['create', 'update', 'patch'].includes(e.verb),
  );

let ecrTokens: Knob | undefined;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  const cfg = testConfiguration() as { registry: Record<string, unknown> };
  await applyConfiguration({ ...cfg, registry: { ...cfg.registry, auth: { mode: 'aws' } } });
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  // A release another file left running would be Healthy at once, and the held Pods below never
  // asked for: its namespace goes, so alpha's step is in flight for as long as the test holds it.
  await kubectl('delete', 'namespace', 'ns-alpha', 'ns-bravo', '--ignore-not-found', '--timeout=120s');
  await grantUsers();
  // Argo CD needs a Secret that works against the test registry; only its expiry matters here.
  await kubectl('delete', 'secret', SECRET, '-n', NS, '--ignore-not-found');
  await ensureArgoCdRepoCreds();
  await expiresIn(6 * 3_600_000);
  for (const name of ['alpha', 'bravo']) await pushChart(name, '1.0.0');
  // The rollout step checks each pinned chart's digest with the ECR token it mints from moto.
  ecrTokens = await acceptMotoEcrTokens();
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
  cp?.stop();
  await cp?.running;
  await ecrTokens?.undo();
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await applyConfiguration();
  await kubectl('annotate', 'secret', SECRET, '-n', NS, `${ANNOTATION.tokenExpiresAt}-`);
});

test('REG-4 a token going stale mid-rollout makes EngineAvailable False with RegistryCredentialsStale and holds the next rollout step; a fresh token lets it finish', async () => {
  await engine('EngineReady');
  const { name: plan } = await storePlan(runtimeUID, [
    chartRelease('alpha', 0, '1.0.0'),
    chartRelease('bravo', 1, '1.0.0'),
  ]);
  let mark = 0;
  await withKnob(holdReleasePods(['ns-alpha']), async () => {
    await target(plan);
    const waiting = await released(
      `AwaitingApproval for ${plan}`,
      (reason, message) => reason === 'AwaitingApproval' && message.includes(plan),
    );
    const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
    const ok = await kubectlAicr(['approve', name], 'alice');
    assert.equal(ok.code, 0, ok.stderr);
    await released(
      'alpha in flight',
      (reason, message) => reason === 'RolloutProgressing' && message.includes('Install alpha'),
    );
    mark = auditMark();
    const soon = await expiresIn(30 * 60_000);
    const stale = await engine('RegistryCredentialsStale');
    assert.equal(stale.status, 'False');
    assert.match(
      stale.message,
      new RegExp(
        `registry token \\(Secret argocd/aicr-registry\\) expires at ${soon.replace(/\./g, '\\.')}, within 60 minutes, so no rollout or rollout step starts`,
      ),
    );
    // Stalled sums up the other conditions in a write of its own, just after EngineAvailable's.
    await waitFor(
      'Stalled to say RegistryCredentialsStale',
      async () => (condition(await getRuntime(), 'Stalled')?.reason === 'RegistryCredentialsStale' ? true : undefined),
      10_000,
    );
  });
  // Argo CD now reports alpha done; the next step still does not start while the token is stale.
  const held = await released(
    'held while stale',
    (reason, message) =>
      reason === 'RolloutProgressing' && message.includes('nothing is written to Argo CD while it is unavailable'),
  );
  assert.match(held.message, /Argo CD's registry token/);
  await waitFor(
    'Argo CD reported alpha synced',
    async () =>
      (await kubectl('get', 'application', 'alpha', '-n', NS, '-o', 'jsonpath={.status.sync.status}')) === 'Synced'
        ? true
        : undefined,
    30_000,
  );
  await settleAudit();
  assert.deepEqual(bravoWrites(auditSince(mark)), [], 'bravo was not written while the token was stale');
  await expiresIn(6 * 3_600_000);
  await released(
    `Released=True on ${plan}`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    60_000,
  );
  assert.equal(condition(await getRuntime(), CONDITION.engineAvailable)?.reason, 'EngineReady');
  const done = await rollout(/rollout (aicr-rollout-[0-9a-z-]+)/.exec(held.message)?.[1] ?? '');
  assert.equal(done.status?.outcome, 'Succeeded');
});

test('OBS-3 the EMF lines of that rollout: AwaitingApproval counted while it waited, RegistryCredentialsStale counted while the token was stale and 0 after, and its outcome', async () => {
  // The gauges are sent once per forwarder window, so the 0 may land a window after Released.
  await waitFor(
    'a RegistryCredentialsStale count of 0 after the 1',
    async () => {
      const counts = metricLines(cp?.records() ?? [], METRIC.credentialsStale);
      const stale = counts.findIndex((l) => l[METRIC.credentialsStale.name] === 1);
      return stale >= 0 && counts.slice(stale).some((l) => l[METRIC.credentialsStale.name] === 0) ? true : undefined;
    },
    30_000,
  ).catch(() => undefined);
  const lines = cp?.records() ?? [];
  const counts = metricLines(lines, METRIC.credentialsStale);
  const stale = counts.findIndex((l) => l[METRIC.credentialsStale.name] === 1);
  assert.ok(stale >= 0, 'a RegistryCredentialsStale count of 1');
  const line = counts[stale];
  assert.ok(line);
  assertDeclared(line, METRIC.credentialsStale);
  assert.match(
    String(line['runtimes']),
    /RegistryCredentialsStale: cluster \(RegistryCredentialsStale\)/,
    'the line names the runtime and its reason',
  );
  assert.ok(
    counts.slice(stale).some((l) => l[METRIC.credentialsStale.name] === 0),
    'back at 0 once the token was fresh: the alarm clears',
  );
  assert.ok(
    counts.some((l) => l[METRIC.awaitingApproval.name] === 1 && l[METRIC.stalledNeedsPerson.name] === 0),
    'waiting for approval notifies and pages nobody',
  );
  const outcome = metricLines(lines, METRIC.rollouts).find((l) => l['Outcome'] === 'Succeeded');
  assert.ok(outcome, 'the rollout outcome is counted');
  assertDeclared(outcome, METRIC.rollouts);
});

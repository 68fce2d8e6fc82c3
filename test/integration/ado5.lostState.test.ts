// ADO-5 on the test cluster: losing the control plane's own namespace is not an orphaning. With
// only its plans gone, the same runtime rebuilds its active plan from the Applications
// (PlanRebuilt). With the whole aicr-system namespace deleted, aicr-config and the chart's Roles
// there go too: the runtime is then Stalled with APIRequestRefused (retried by itself), whose
// message says the configuration cannot be read and the chart must be installed again; Released
// keeps its last value and nothing is written to Argo CD. Once the chart is back, the active plan
// is rebuilt the same way. Every check reads what happened after the deletion: the
// Events since it, and conditions re-read after a look that began after it. The rollout and
// drift-check steps run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CONDITION, CONFIGURATION, LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { auditMark } from '../../harness/audit.ts';
import { ensureChart } from '../../harness/chart.ts';
import { applyConfiguration, ensureRegistrySecrets, testConfiguration } from '../../harness/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart } from '../../harness/rolloutStage.ts';
import { assertNoApplicationWrite, clearRolloutStage, installedRuntime, stopAndClear } from '../../harness/rollouts.ts';
import { condition, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const CONFIG = { ...testConfiguration(), drift: { checkInterval: '2s' } };
let cp: ReturnType<typeof startCapturedControlPlane>;
let plan = '';
let uid = '';

before(async () => {
  await clearRolloutStage({ configuration: CONFIG });
  for (const name of ['alpha', 'bravo']) await pushChart(name, '1.0.0');
  cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: STEP_TABLE.filter((r) => r.name === 'rollout' || r.name === 'drift-check'),
  });
  const installed = await installedRuntime(
    { aicrVersion: 'v0.11.1', criteria: { service: 'eks' }, validation: { deployment: 'Disabled' } },
    [chartRelease('alpha', 0, '1.0.0'), chartRelease('bravo', 1, '1.0.0')],
  );
  ({ plan, uid } = installed);
});

after(async () => {
  await stopAndClear(cp);
  // Later files find the namespace as the chart and the suite left it.
  await ensureChart();
  await applyConfiguration();
  await ensureRegistrySecrets();
});

interface Seen {
  readonly reason: string;
  readonly message: string;
}

/** The runtime's Events recorded (first or again) at or after `since`. */
async function eventsSince(since: Date): Promise<Seen[]> {
  const out = JSON.parse(
    await kubectl(
      'get',
      'events',
      '-n',
      NAMESPACES.events,
      '--field-selector',
      `involvedObject.uid=${uid}`,
      '-o',
      'json',
    ),
  ) as { items: { reason?: string; message?: string; lastTimestamp?: string }[] };
  // Event times have whole seconds: a second's margin keeps one recorded in the deletion's own second.
  return out.items
    .filter((e) => Date.parse(e.lastTimestamp ?? '') >= since.getTime() - 1_000)
    .map((e) => ({ reason: e.reason ?? '', message: e.message ?? '' }));
}

/** The plan is back, an Event since `since` says it was rebuilt, and a later look still finds the runtime owning its Applications. */
async function rebuiltSince(since: Date): Promise<void> {
  await waitFor(
    'the active plan written back',
    async () => (await stepKube('resolve').get(KIND.configMap, plan, NAMESPACES.system)) ?? undefined,
    60_000,
  );
  const rebuilt = await waitFor(
    'a PlanRebuilt Event since the loss',
    async () => (await eventsSince(since)).find((e) => e.reason === 'PlanRebuilt'),
    20_000,
  );
  assert.match(rebuilt.message, new RegExp(plan));
  // Two drift checks later, what the runtime says is from after the rebuild.
  await new Promise((r) => setTimeout(r, 5_000));
  const rt = await getRuntime();
  assert.equal(condition(rt, 'InventoryConsistent')?.status, 'True');
  assert.equal(condition(rt, 'Released')?.reason, 'Released', 'the runtime still owns its Applications');
  const reasons = (await eventsSince(since)).map((e) => e.reason);
  for (const bad of ['OrphanedObjectsPresent', 'PlanMissing', 'AdoptionBlocked'])
    assert.equal(reasons.includes(bad), false, `no ${bad} since the loss: ${reasons.join(', ')}`);
}

test('ADO-5 losing the plans in the control plane namespace rebuilds the active plan from the Applications (PlanRebuilt); it is not an orphaning and nothing is written to Argo CD', async () => {
  const mark = auditMark();
  const since = new Date();
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  await rebuiltSince(since);
  await assertNoApplicationWrite(mark);
});

test('ADO-5 the whole aicr-system namespace deleted, aicr-config with it: the runtime stalls with APIRequestRefused saying the configuration cannot be read and to install the chart again, and writes nothing to Argo CD; once the chart is back the active plan is rebuilt (PlanRebuilt), not an orphaning', async () => {
  const mark = auditMark();
  const since = new Date();
  await kubectl('delete', 'namespace', NAMESPACES.system, '--wait=true', '--timeout=120s');
  const gone = await waitFor(
    'the runtime to report the missing configuration',
    async () => {
      const c = condition(await getRuntime(), 'Stalled');
      return c?.status === 'True' && c.message.includes(`${CONFIGURATION.namespace}/${CONFIGURATION.name}`)
        ? c
        : undefined;
    },
    60_000,
  ).catch(async (err: unknown) => {
    const said = cp
      .records()
      .filter((r) => r['level'] !== 'DEBUG' && r['level'] !== 'INFO')
      .slice(-5);
    throw new Error(
      `${(err as Error).message}; conditions ${JSON.stringify((await getRuntime())?.status?.conditions)}; last warnings ${JSON.stringify(said)}`,
      { cause: err },
    );
  });
  assert.equal(gone.reason, 'APIRequestRefused');
  assert.match(
    gone.message,
    /^configuration ConfigMap aicr-system\/aicr-config cannot be read \(http 403 Forbidden for aicr-step-[a-z-]+\): the chart's Roles in aicr-system are gone, .*Install the chart again/,
  );
  await waitFor(
    'the rollout step to say it too',
    async () => {
      const c = condition(await getRuntime(), CONDITION.engineAvailable);
      return c?.reason === 'APIRequestRefused' &&
        c.message.startsWith(`configuration ConfigMap ${CONFIGURATION.namespace}/${CONFIGURATION.name} cannot be read`)
        ? true
        : undefined;
    },
    30_000,
  );
  assert.equal(condition(await getRuntime(), 'Released')?.reason, 'Released', 'Released keeps its last value');
  await new Promise((r) => setTimeout(r, 3_000));
  await assertNoApplicationWrite(mark);
  // The fix the message gives: install the chart again (the suite's configuration on top).
  await ensureChart();
  await applyConfiguration(CONFIG);
  await rebuiltSince(since);
  await waitFor(
    'the refusal cleared by itself',
    async () => (condition(await getRuntime(), 'Stalled')?.status === 'False' ? true : undefined),
    30_000,
  );
  await assertNoApplicationWrite(mark);
});

// ADO-5 on the test cluster: losing only the control plane's state in its own namespace (every
// plan ConfigMap) is not an orphaning. The same runtime rebuilds its active plan from the
// Applications (PlanRebuilt), never reports them as another runtime's, and writes nothing to
// Argo CD. The rollout and drift-check steps run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { LABEL, NAMESPACES, ROLE } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { auditMark } from '../helpers/audit.ts';
import { testConfiguration } from '../helpers/configuration.ts';
import { startCapturedControlPlane, stepKube } from '../helpers/controlPlane.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart } from '../helpers/rolloutStage.ts';
import { assertNoApplicationWrite, clearRolloutStage, installedRuntime, stopAndClear } from '../helpers/rollouts.ts';
import { condition, getRuntime, kubectl, waitFor } from '../helpers/runtime.ts';

let cp: ReturnType<typeof startCapturedControlPlane>;
let plan = '';

before(async () => {
  await clearRolloutStage({ configuration: { ...testConfiguration(), drift: { checkInterval: '2s' } } });
  for (const name of ['alpha', 'bravo']) await pushChart(name, '1.0.0');
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 }, table: STEP_TABLE.filter((r) => r.name === 'rollout' || r.name === 'drift-check') });
  ({ plan } = await installedRuntime({ aicrVersion: 'v0.11.1', criteria: { service: 'eks' }, validation: { deployment: 'Disabled' } }, [chartRelease('alpha', 0, '1.0.0'), chartRelease('bravo', 1, '1.0.0')]));
});

after(() => stopAndClear(cp));

test('ADO-5 losing the plans in the control plane namespace rebuilds the active plan from the Applications (PlanRebuilt); it is not an orphaning and nothing is written to Argo CD', async () => {
  const mark = auditMark();
  await kubectl('delete', 'configmap', '-n', NAMESPACES.system, '-l', `${LABEL.role}=${ROLE.plan}`);
  await waitFor('the active plan written back', async () => (await stepKube('resolve').get(KIND.configMap, plan, NAMESPACES.system)) ?? undefined, 30_000);
  const events = await kubectl('get', 'events', '-n', NAMESPACES.events, '--field-selector', 'involvedObject.name=cluster,reason=PlanRebuilt', '-o', 'jsonpath={.items[*].message}');
  assert.match(events, new RegExp(plan));
  const rt = await getRuntime();
  assert.equal(condition(rt, 'InventoryConsistent')?.status, 'True');
  assert.equal(condition(rt, 'Released')?.reason, 'Released', 'the runtime still owns its Applications: no OrphanedObjectsPresent');
  await assertNoApplicationWrite(mark);
});

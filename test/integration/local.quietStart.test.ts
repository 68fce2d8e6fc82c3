// A clean start of local mode logs no warning. The API server answers the first list or watch
// of a just-installed CRD with 429 while that resource's watch cache loads; the forwarder waits
// as asked instead of reporting a failed watch.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { KINDS, API_GROUP } from '../../shared/api/constants.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import {
  condition,
  createRuntime,
  deleteRuntime,
  ensureCrds,
  getRuntime,
  kubectl,
  waitFor,
} from '../../harness/runtime.ts';

after(ensureCrds);

test('a clean start right after the CRDs are installed logs no warning and still reaches the runtime', async () => {
  await deleteRuntime();
  await kubectl('delete', 'crd', `${KINDS.clusterRuntime.plural}.${API_GROUP}`, '--wait=true');
  await ensureCrds();
  const cp = startCapturedControlPlane();
  try {
    await createRuntime({ aicrVersion: 'v0.11.1' });
    await waitFor('first status', async () => (condition(await getRuntime(), 'Resolved') ? true : undefined));
    const noisy = cp.records().filter((r) => r['level'] === 'WARN' || r['level'] === 'ERROR');
    assert.deepEqual(noisy, [], 'no warning or error at start');
  } finally {
    cp.stop();
    await cp.running;
    await deleteRuntime();
  }
});

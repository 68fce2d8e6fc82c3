// A runtime holding data the schema no longer accepts (stored before a stricter CRD), or an
// override no AICR command line can carry, stalls with InvalidSpec and the field path, and
// nothing but its status is written.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolveItem, runResolveOnce } from '../../harness/steps.ts';
import { auditMark } from '../../harness/audit.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { controlPlaneRequests } from '../helpers/statusWrites.ts';
import { storeWithLooseSchema } from '../helpers/looseSchema.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../../harness/runtime.ts';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(async () => {
  await deleteRuntime();
  await ensureCrds();
});

test('COND-2 stored data the schema refuses stalls the runtime with InvalidSpec naming the field', async () => {
  await storeWithLooseSchema({ aicrVersion: 'v0.11.1', criteria: { service: 'mainframe' } });
  const rt = await getRuntime();
  assert.ok(rt);
  const { log } = captureLogger();
  const mark = auditMark();
  const result = await runResolveOnce(resolveItem(rt.metadata.uid), { kube: stepKube('resolve'), log });
  assert.equal(result.writes, 1, 'the step writes Resolved and, with it, the summary writes Stalled');
  const after = await getRuntime();
  const stalled = condition(after, 'Stalled');
  assert.equal(stalled?.status, 'True');
  assert.equal(stalled?.reason, 'InvalidSpec');
  assert.match(stalled?.message ?? '', /^spec\.criteria\.service: /);
  assert.equal(condition(after, 'Ready')?.status, 'False');
  assert.equal(condition(after, 'Resolved')?.reason, 'InvalidSpec');
  const count = await controlPlaneRequests(mark);
  assert.equal(count.ok, 1, 'one status write: the step condition with the summary');
  // Nothing else is written: no Job, no output; only the Event of Resolved's transition (COND-4).
  assert.deepEqual(
    count.otherWrites.map((e) => `${e.verb} ${e.objectRef?.resource ?? ''}`),
    ['create events'],
    'nothing else is written',
  );
});

test('COND-2 a 300 KB override value, which the API server accepts but no command line carries, is InvalidSpec naming its path and the limit; no Job is created', async () => {
  await deleteRuntime();
  await applyConfiguration();
  const criteria = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
  const rt = await createRuntime({
    aicrVersion: 'v0.11.1',
    criteria,
    components: { 'gpu-operator': { values: { driver: { licence: 'x'.repeat(300 * 1024) } } } },
  });
  const mark = auditMark();
  await runResolveOnce(resolveItem(rt.metadata.uid), { kube: stepKube('resolve'), log: captureLogger().log });
  const after = await getRuntime();
  assert.equal(condition(after, 'Resolved')?.reason, 'InvalidSpec');
  assert.match(
    condition(after, 'Stalled')?.message ?? '',
    /^spec\.components\.gpu-operator\.values\.driver\.licence: too large for one command-line argument: .*the limit is 131071 bytes \(128 KiB\)/,
  );
  const count = await controlPlaneRequests(mark);
  assert.deepEqual(
    count.otherWrites.map((e) => `${e.verb} ${e.objectRef?.resource ?? ''}`),
    ['create events'],
    'no Job: nothing but the status and its Event is written',
  );
});

// Events on the runtime: one on each condition transition, and the same Event again counts up
// on one object instead of adding objects, so a retry loop never floods `kubectl describe`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { recordEvent } from '../../shared/events/recorder.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../../harness/runtime.ts';
import { resolveItem, runResolveOnce } from '../../harness/steps.ts';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(deleteRuntime);

async function eventsOf(uid: string): Promise<{ type: string; reason: string; count: number; message: string }[]> {
  const out = JSON.parse(
    await kubectl('get', 'events', '-n', 'default', '--field-selector', `involvedObject.uid=${uid}`, '-o', 'json'),
  ) as {
    items: { type: string; reason: string; count: number; message: string }[];
  };
  return out.items;
}

test('COND-4 a condition transition is an Event on the runtime that kubectl describe shows; the same Event again counts up on one object', async () => {
  const rt = await createRuntime({ aicrVersion: 'v0.0.1' });
  const deps = { kube: stepKube('resolve'), log: captureLogger().log };
  await runResolveOnce(resolveItem(rt.metadata.uid), deps);
  assert.equal(condition(await getRuntime(), 'Resolved')?.reason, 'AICRVersionMismatch');
  const [transition] = await eventsOf(rt.metadata.uid);
  assert.equal(transition?.type, 'Warning', 'a stall is a Warning');
  assert.equal(transition?.reason, 'AICRVersionMismatch');
  assert.match(transition?.message ?? '', /^Resolved=False: spec\.aicrVersion v0\.0\.1 has no pinned AICR image/);
  assert.match(await kubectl('describe', 'clusterruntime', 'cluster'), /Warning\s+AICRVersionMismatch/);

  // No transition, no Event: the same answer again writes nothing.
  await runResolveOnce(resolveItem(rt.metadata.uid), deps);
  assert.equal((await eventsOf(rt.metadata.uid)).length, 1);

  const note = {
    type: 'Warning' as const,
    reason: 'AICRRunFailed',
    message: 'Job aicr-recipe-0-1: aicr recipe exited 8',
  };
  const target = { kube: stepKube('resolve'), runtime: rt, reporter: 'resolve', now: new Date() };
  for (let i = 0; i < 3; i++) await recordEvent(target, note);
  const repeated = (await eventsOf(rt.metadata.uid)).filter((e) => e.reason === 'AICRRunFailed');
  assert.equal(repeated.length, 1, 'one object');
  assert.equal(repeated[0]?.count, 3, 'counted three times');
});

// OBS-1: log lines of a message's handling carry the runtime UID, and never a value or a
// credential, even when the value travels through a failure path.
import { test, before, beforeEach, after } from 'node:test';
import assert from 'node:assert/strict';
import { errorFields } from '../../shared/classify.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { EmbeddedQueue } from '../../shared/queue/embedded.ts';
import { encodeWorkItem, runtimeGroup } from '../../shared/queue/workItem.ts';
import { dispatchAll, dispatchDeps, resolveItem } from '../../harness/steps.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { captureLogger } from '../../harness/logs.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime } from '../../harness/runtime.ts';

const SECRET = 'hunter2-S3CR3T-do-not-log';

before(ensureCrds);
beforeEach(deleteRuntime);
after(deleteRuntime);

test('OBS-1 every log line of a message handling carries the runtime UID, and no spec value', async () => {
  const rt = await createRuntime({
    aicrVersion: 'v0.11.1',
    components: { 'gpu-operator': { values: { registryPassword: SECRET } } },
  });
  const { log, lines, records } = captureLogger('debug');
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 10 });
  queue.consume(async (m) => {
    await dispatchAll(m, dispatchDeps(stepKube('resolve'), log, queue));
  });
  const item = resolveItem(rt.metadata.uid);
  await queue.send({ step: 'resolve', group: runtimeGroup(rt.metadata.uid), dedupId: '1', body: encodeWorkItem(item) });
  await queue.idle();
  queue.stop();
  assert.ok(records().length > 0);
  for (const r of records()) assert.equal(r['runtimeUID'], rt.metadata.uid, JSON.stringify(r));
  assert.equal(lines.join('\n').includes(SECRET), false);
  const status = JSON.stringify((await getRuntime())?.status);
  assert.equal(status.includes(SECRET), false, 'the secret is not copied into status either');
});

test('OBS-1 a secret in a malformed message is not logged; the failing field is', async () => {
  const { log, lines, records } = captureLogger('debug');
  const queue = new EmbeddedQueue({ redeliveryDelayMs: 5, maxReceives: 2 });
  queue.consume(async (m) => {
    await dispatchAll(m, dispatchDeps(stepKube('resolve'), log, queue));
  });
  const body = JSON.stringify({ v: 1, step: SECRET, runtime: { name: 'cluster', uid: 'u' }, cause: 'x' });
  await queue.send({ step: 'resolve', group: 'g', dedupId: 'bad', body });
  await queue.idle();
  queue.stop();
  assert.equal(queue.deadLetters.length, 1, 'dead-lettered after the redelivery count');
  assert.equal(lines.join('\n').includes(SECRET), false);
  const malformed = records().filter((r) => r['message'] === 'malformed message');
  assert.equal(malformed.length, 2);
  assert.equal(malformed[0]?.['field'], 'step');
});

test('OBS-1 a value the API server echoes in a refusal never reaches the log', async () => {
  const rt = await createRuntime({ aicrVersion: 'v0.11.1' });
  const { log, lines } = captureLogger('debug');
  const kube = stepKube('resolve');
  const bad = { type: 'Ready', status: SECRET, reason: 'X', message: 'm', lastTransitionTime: '2026-11-30T10:00:00Z' };
  const err = await kube
    .applyStatus(
      KIND.clusterRuntime,
      { metadata: { name: 'cluster', resourceVersion: rt.metadata.resourceVersion }, status: { conditions: [bad] } },
      { fieldManager: 'aicr-test', force: true },
    )
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(err instanceof Error, 'the API server refused the write');
  assert.match(err.message, /http 422 Invalid/);
  assert.match(err.message, /status\.conditions\[0\]\.status/, 'the refused field is named');
  log.error('status write refused', errorFields(err));
  assert.equal(lines.join('\n').includes(SECRET), false);
  assert.equal(err.message.includes(SECRET), false);
});

test('OBS-1 sensitive field names are redacted whatever their value', () => {
  const { log, lines } = captureLogger();
  log.info('refreshed', { token: SECRET, authorization: SECRET, password: SECRET, runtimeUID: 'u' });
  assert.equal(lines.join('').includes(SECRET), false);
  assert.match(lines.join(''), /"runtimeUID":"u"/);
});

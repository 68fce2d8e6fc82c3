// One classifier maps every error class to one of four outcomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOME, backoffDelay, classify, errorFields } from '../../shared/classify.ts';
import { ConflictError, GoneError, KubeRequestError, MalformedMessageError, RequeueAfterError, StalledError, TransientError } from '../../shared/errors.ts';

test('each error class maps to its outcome', () => {
  const cases: [unknown, string][] = [
    [new TransientError('api 503'), OUTCOME.retryNow],
    [new ConflictError('409'), OUTCOME.retryNow],
    [new GoneError('410'), OUTCOME.retryNow],
    [new MalformedMessageError('step', 'invalid_value'), OUTCOME.retryNow],
    [new RequeueAfterError('job running', 5000), OUTCOME.retryAfter],
    [new KubeRequestError(403, 'Forbidden', []), OUTCOME.retryAfter],
    [new StalledError('TransitionBlocked', 'blocked', false), OUTCOME.stalledWaiting],
    [new StalledError('RegistryCredentialsUnavailable', 'no token', true), OUTCOME.stalledRetrying],
    [new Error('something unexpected'), OUTCOME.retryAfter],
  ];
  for (const [err, want] of cases) assert.equal(classify(err, 1).kind, want, String(err));
});

test('requeue delay is the one the error asked for; backoff grows from 10 s to 5 min', () => {
  const out = classify(new RequeueAfterError('wait', 1234), 3);
  assert.equal(out.kind === OUTCOME.retryAfter && out.delayMs, 1234);
  assert.deepEqual([1, 2, 3, 6, 20].map(backoffDelay), [10_000, 20_000, 40_000, 300_000, 300_000]);
  const stalled = classify(new StalledError('R', 'm', true), 2);
  assert.equal(stalled.kind === OUTCOME.stalledRetrying && stalled.delayMs, 20_000);
});

test('an unknown error is logged by type only, never by its message', () => {
  const fields = errorFields(new Error('password=hunter2'));
  assert.equal(JSON.stringify(fields).includes('hunter2'), false);
  assert.equal(fields['errorKind'], 'unexpected');
});

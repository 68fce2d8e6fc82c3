// One classifier maps every error class to one of four outcomes; backoff grows with attempts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOME, classify, errorFields } from '../../shared/classify.ts';
import {
  ConflictError,
  GoneError,
  KubeRequestError,
  MalformedMessageError,
  RegistryRefusedError,
  RegistryUnavailableError,
  StalledError,
  StatusWriteRefusedError,
  StepNotRoutedError,
  ThrottledError,
  TransientError,
} from '../../shared/errors.ts';
import { DEFAULT_TIMINGS, backoffDelay } from '../../shared/timings.ts';

test('each error class maps to its outcome', () => {
  const cases: [unknown, string][] = [
    [new TransientError('api 503'), OUTCOME.retryAfter],
    [new RegistryUnavailableError('registry did not answer: ECONNREFUSED'), OUTCOME.retryAfter],
    [new GoneError('410'), OUTCOME.retryAfter],
    [new ConflictError('409'), OUTCOME.retryNow],
    [new MalformedMessageError('step', 'invalid_value'), OUTCOME.retryNow],
    [new StepNotRoutedError('probe', ['resolve']), OUTCOME.retryNow],
    [new ThrottledError('429', 5000), OUTCOME.retryAfter],
    [new KubeRequestError(404, 'NotFound', []), OUTCOME.retryAfter],
    [new KubeRequestError(403, 'Forbidden', []), OUTCOME.stalledRetrying],
    [new KubeRequestError(400, 'BadRequest', []), OUTCOME.stalledRetrying],
    [new StatusWriteRefusedError(['status.conditions[0].message']), OUTCOME.stalledWaiting],
    [new StalledError('TransitionBlocked', 'blocked'), OUTCOME.stalledWaiting],
    [new StalledError('RegistryCredentialsUnavailable', 'no token'), OUTCOME.stalledRetrying],
    [new Error('something unexpected'), OUTCOME.retryAfter],
  ];
  for (const [err, want] of cases) assert.equal(classify(err).kind, want, String(err));
});

test('a refusal by the API server is stalled-but-retrying with a reason from the table', () => {
  const out = classify(new KubeRequestError(403, 'Forbidden', [], 'aicr-control-plane'));
  assert.equal(out.kind, OUTCOME.stalledRetrying);
  assert.equal(out.kind === OUTCOME.stalledRetrying && out.reason, 'APIRequestRefused');
  assert.match(out.kind === OUTCOME.stalledRetrying ? out.message : '', /for aicr-control-plane: http 403 Forbidden/);
});

test('requeue delay is the one the error asked for; backoff doubles from 10 s and is capped at 5 min', () => {
  const out = classify(new ThrottledError('wait', 1234));
  assert.equal(out.kind === OUTCOME.retryAfter && out.delayMs, 1234);
  const noJitter = (): number => 0;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20, 5000].map((a) => backoffDelay(a, DEFAULT_TIMINGS, noJitter)),
    [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000, 300_000],
  );
});

test('jitter only shortens a delay, by at most a tenth, and never passes the cap', () => {
  for (const attempt of [1, 3, 6, 50]) {
    const full = backoffDelay(attempt, DEFAULT_TIMINGS, () => 0);
    for (const r of [0, 0.25, 0.5, 0.999]) {
      const d = backoffDelay(attempt, DEFAULT_TIMINGS, () => r);
      assert.ok(d <= full && d >= full * 0.9, `attempt ${attempt} r ${r}: ${d}`);
      assert.ok(d <= DEFAULT_TIMINGS.backoffCapMs);
    }
  }
});

test('an unknown error is logged by type only, never by its message', () => {
  const fields = errorFields(new Error('password=hunter2'));
  assert.equal(JSON.stringify(fields).includes('hunter2'), false);
  assert.equal(fields['errorKind'], 'unexpected');
});

test('a registry refusal is logged with its http status, and names no credential', () => {
  const fields = errorFields(new RegistryRefusedError(403, '127.0.0.1:5000', 'aicr/bundles'));
  assert.deepEqual(fields, {
    errorKind: 'registry-refused',
    error:
      'registry 127.0.0.1:5000 refused access to aicr/bundles (http 403): grant the credentials pull access to this repository',
    httpStatus: 403,
  });
});

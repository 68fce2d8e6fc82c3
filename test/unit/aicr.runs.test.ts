// The pure parts of AICR runs: overrides to --set, how a failure counts, error tails, the
// configuration's did-you-mean, and wait messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SET_ARGUMENT_BYTES, overrideSets } from '../../shared/aicr/overrides.ts';
import { errorTail, verdictOf } from '../../shared/aicr/verdict.ts';
import { describeWaiting, runningMessage } from '../../shared/aicr/waiting.ts';
import { inputHash, jobName } from '../../shared/aicr/stages.ts';
import { parseConfiguration } from '../../shared/configuration/read.ts';
import { StalledError } from '../../shared/errors.ts';

test('nested values flatten to --set paths in a stable order; a list is refused naming its path', () => {
  const ok = overrideSets({
    'gpu-operator': { enabled: true, values: { driver: { version: '570.1', rdma: { enabled: false } } } },
  });
  assert.deepEqual(ok.args, [
    '--set',
    'gpu-operator:enabled=true',
    '--set',
    'gpu-operator:driver.rdma.enabled=false',
    '--set',
    'gpu-operator:driver.version=570.1',
  ]);
  const bad = overrideSets({ 'gpu-operator': { values: { tolerations: [{ key: 'a' }] } } });
  assert.deepEqual(
    bad.problems.map((p) => p.field),
    ['spec.components.gpu-operator.values.tolerations'],
  );
  assert.match(bad.problems[0]?.message ?? '', /list cannot be set/);
});

test('JOB-9 exit 6, and exit 8 around SERVICE_UNAVAILABLE, are transient; a refused push is Unauthorized; recipe INVALID_REQUEST is refused', () => {
  assert.equal(verdictOf('render', 6, 'dial tcp: connection refused'), 'transient');
  assert.equal(
    verdictOf(
      'render',
      8,
      '[INTERNAL] failed to push OCI artifact to registry: [SERVICE_UNAVAILABLE] failed to push artifact to registry: dial tcp',
    ),
    'transient',
  );
  assert.equal(
    verdictOf(
      'render',
      8,
      '[INTERNAL] … [SERVICE_UNAVAILABLE] failed to push artifact to registry: response status code 403: denied',
    ),
    'unauthorized',
  );
  assert.equal(
    verdictOf('recipe', 8, '[INTERNAL] error building recipe: [INVALID_REQUEST] invalid os type: talos'),
    'refused',
  );
  assert.equal(verdictOf('recipe', 8, '[INTERNAL] something broke'), 'counted');
  assert.equal(verdictOf('render', 2, 'bad flag'), 'refused');
});

test("JOB-2 the tail is AICR's own error line without colour codes", () => {
  const out =
    '\u001b[32m[cli] building recipe\u001b[0m\n\u001b[31m[cli] command failed: error=[INTERNAL] boom: cause exitCode=8\u001b[0m\n';
  assert.equal(errorTail(out), '[INTERNAL] boom: cause');
  assert.equal(errorTail('a\nb\n'), 'a\nb');
});

test('JOB-1 equal inputs hash alike whatever the key order; a run is named from stage, hash and number', () => {
  assert.equal(inputHash({ a: 1, b: { c: 2, d: 3 } }), inputHash({ b: { d: 3, c: 2 }, a: 1 }));
  assert.notEqual(inputHash({ a: 1 }), inputHash({ a: 2 }));
  assert.match(jobName('render', inputHash({ a: 1 }), 3), /^aicr-render-[0-9a-f]{16}-3$/);
});

test('a misspelt configuration key names the key meant; a wrong type names the key', () => {
  const typo = (): unknown => parseConfiguration('registry:\n  repositry: example.com/aicr\n');
  assert.throws(
    typo,
    (e: unknown) =>
      e instanceof StalledError &&
      e.reason === 'InvalidConfiguration' &&
      /registry\.repositry: unknown key; did you mean registry\.repository\?/.test(e.message),
  );
  assert.throws(() => parseConfiguration('registry:\n  plainHTTP: "yes"\n'), /registry\.plainHTTP: /);
  assert.throws(() => parseConfiguration('registry: [\n'), /is not YAML/);
  assert.equal(parseConfiguration('').registry.auth.mode, 'static');
});

test('JOB-3 a young Job without a pod is given a grace; an old one is a refusal the runbook names', () => {
  const job = {
    metadata: {
      name: 'aicr-recipe-x-1',
      namespace: 'aicr-jobs',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: '2026-11-30T10:00:00Z',
    },
  };
  assert.equal(describeWaiting(job, [], new Date('2026-11-30T10:00:02Z'), 5000).recheck, true);
  assert.match(
    describeWaiting(job, [], new Date('2026-11-30T10:01:00Z'), 5000).message,
    /^Job aicr-recipe-x-1 has no pod \(a quota or Pod Security refusal/,
  );
});

test('an override value too large for one command-line argument is refused naming its path and the limit; one that fits is passed', () => {
  const component = 'gpu-operator';
  // The argument is `<component>:<path>=<value>`: the largest value that still fits, and one byte more.
  const room = MAX_SET_ARGUMENT_BYTES - `${component}:driver.licence=`.length;
  const fits = overrideSets({ [component]: { values: { driver: { licence: 'x'.repeat(room) } } } });
  assert.deepEqual(fits.problems, []);
  assert.equal(Buffer.byteLength(fits.args[1] ?? ''), MAX_SET_ARGUMENT_BYTES);
  const over = overrideSets({
    [component]: { values: { driver: { licence: 'x'.repeat(room + 1), version: '570.1' } } },
  });
  assert.deepEqual(
    over.problems.map((p) => p.field),
    ['spec.components.gpu-operator.values.driver.licence'],
  );
  assert.match(
    over.problems[0]?.message ?? '',
    /too large for one command-line argument: its --set argument is 131072 bytes, the limit is 131071 bytes \(128 KiB\)/,
  );
  // Bytes, not characters, are what the kernel counts: 60 000 three-byte characters do not fit.
  const wide = overrideSets({ [component]: { values: { banner: '\u20ac'.repeat(60_000) } } });
  assert.deepEqual(
    wide.problems.map((p) => p.field),
    ['spec.components.gpu-operator.values.banner'],
  );
  const huge = overrideSets({ [component]: { values: { blob: 'y'.repeat(300 * 1024) } } });
  assert.match(huge.problems[0]?.message ?? '', /--set argument is 307218 bytes, the limit is 131071 bytes/);
});

test('JOB-3 every waiting reason that holds a container back is named with the kubelet text; one on its way still reads running', () => {
  const job = {
    metadata: {
      name: 'aicr-render-x-1',
      namespace: 'aicr-jobs',
      uid: 'u',
      resourceVersion: '1',
      labels: { 'operator.aicr.run/stage': 'render' },
    },
  };
  const pod = (reason: string, message: string) => ({
    metadata: { name: 'aicr-render-x-1-abcde', namespace: 'aicr-jobs', uid: 'p', resourceVersion: '1' },
    status: { phase: 'Pending', containerStatuses: [{ name: 'aicr', state: { waiting: { reason, message } } }] },
  });
  const now = new Date('2026-11-30T10:01:00Z');
  for (const [reason, text] of [
    ['ImagePullBackOff', 'Back-off pulling image "aicr:v0.11.1"'],
    ['CreateContainerConfigError', 'secret "aicr-registry" not found'],
    ['RunContainerError', 'spawn E2BIG'],
    ['CrashLoopBackOff', 'back-off 10s restarting failed container'],
  ] as const) {
    const waiting = describeWaiting(job, [pod(reason, text)], now, 5000);
    assert.equal(waiting.message, `Job aicr-render-x-1: ${reason}: ${text}`, reason);
    assert.equal(waiting.pending, true, `${reason} holds the run back`);
  }
  assert.equal(
    describeWaiting(job, [pod('ContainerCreating', '')], now, 5000).message,
    runningMessage('render', 'aicr-render-x-1'),
  );
});

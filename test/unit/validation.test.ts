// The pure parts of deployment validation: reading AICR's CTRF report, telling a readiness
// refusal from an internal failure, and holding validator Pods to their pinned digests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailures, parseReport, reportPassed } from '../../shared/aicr/ctrf.ts';
import { VERDICT, verdictOf } from '../../shared/aicr/verdict.ts';
import { validationArgs } from '../../shared/rollout/io/validationStage.ts';
import type { PodObject } from '../../shared/kube/kinds.ts';
import { deploymentValidatorImage, pinBreach, unpinned } from '../../shared/rollout/io/validatorPins.ts';

const report = (tests: { name: string; status: string; message?: string }[]): string =>
  JSON.stringify({
    reportFormat: 'CTRF',
    results: {
      tool: { name: 'aicr' },
      summary: {
        tests: tests.length,
        passed: tests.filter((t) => t.status === 'passed').length,
        failed: tests.filter((t) => t.status === 'failed').length,
        skipped: 0,
        other: tests.filter((t) => t.status === 'other').length,
      },
      tests: tests.map((t) => ({ ...t, duration: 1, suite: ['deployment'] })),
    },
  });

test('VAL-2 a CTRF report with a failed check does not pass, and names the check with the first line of its message', () => {
  const r = parseReport(
    report([
      { name: 'operator-health', status: 'failed', message: 'no gpu-operator pods found\nmore' },
      { name: 'expected-resources', status: 'passed' },
    ]),
  );
  assert.ok(r.ok);
  assert.equal(reportPassed(r.output), false);
  assert.equal(describeFailures(r.output), 'operator-health (failed): no gpu-operator pods found');
  const ok = parseReport(
    report([
      { name: 'operator-health', status: 'passed' },
      { name: 'x', status: 'skipped' },
    ]),
  );
  assert.ok(ok.ok && reportPassed(ok.output));
  const other = parseReport(report([{ name: 'check-nvidia-smi', status: 'other' }]));
  assert.ok(other.ok && !reportPassed(other.output), 'a crashed validator is not a pass');
});

test('VAL-2 no report, or one that is not CTRF, is a problem that says so', () => {
  assert.deepEqual(parseReport(undefined), { ok: false, problem: 'aicr validate wrote no CTRF report' });
  const bad = parseReport('{"results":{}}');
  assert.ok(!bad.ok && /does not read as one: results\.summary/.test(bad.problem));
});

test('VAL-2 exit 8 with a readiness refusal is refused (not run again); exit 8 otherwise counts; exit 2 is refused', () => {
  assert.equal(
    verdictOf(
      'validation',
      8,
      '[INTERNAL] validation failed: [INVALID_REQUEST] readiness check failed: K8s.server.version expected >= 1.99.0, got v1.34.4',
    ),
    VERDICT.refused,
  );
  assert.equal(verdictOf('validation', 8, '[INTERNAL] failed to ensure RBAC'), VERDICT.counted);
  assert.equal(verdictOf('validation', 2, 'invalid phase'), VERDICT.refused);
  assert.equal(
    verdictOf('recipe', 8, 'readiness check failed'),
    VERDICT.counted,
    'only validate reports readiness that way',
  );
});

test('VAL-5 a validation run is the deployment phase only, in aicr-validation, with its recipe and snapshot given (no agent of its own)', () => {
  const args = validationArgs('abc');
  assert.deepEqual(args.slice(0, 5), ['validate', '--phase', 'deployment', '-n', 'aicr-validation']);
  assert.ok(args.includes('-s'), 'a snapshot is given, so AICR starts no snapshot agent');
  assert.ok(args.every((a) => !a.startsWith('cm://') || a.startsWith('cm://aicr-validation/')));
});

const pod = (image: string, imageID?: string): PodObject =>
  ({
    metadata: { name: 'aicr-operator-health-x', uid: 'u', resourceVersion: '1' },
    spec: { containers: [{ image }] },
    status: { containerStatuses: imageID ? [{ name: 'validator', imageID }] : [] },
  }) as PodObject;

test('VAL-4 a validator image must be pinned at the tag AICR names, by digest, and run that digest', () => {
  const image = deploymentValidatorImage('v0.11.1');
  const digest = `sha256:${'a'.repeat(64)}`;
  const pins = { [image]: `ghcr.io/nvidia/aicr-validators/deployment@${digest}` };
  assert.equal(unpinned(image, pins), undefined);
  assert.match(unpinned(image, {}) ?? '', /is not pinned in aicr\.validatorImages at the tag AICR names/);
  assert.match(
    unpinned(image, { [image]: 'ghcr.io/nvidia/aicr-validators/deployment:v0.11.1' }) ?? '',
    /without a digest/,
  );
  assert.equal(
    pinBreach([pod(image), pod(image, `ghcr.io/nvidia/aicr-validators/deployment@${digest}`)], pins),
    undefined,
    'not started yet, or the pinned digest',
  );
  assert.match(
    pinBreach([pod(image, `ghcr.io/nvidia/aicr-validators/deployment@sha256:${'b'.repeat(64)}`)], pins) ?? '',
    /runs sha256:b{64} in Pod aicr-operator-health-x, not sha256:a{64}/,
  );
  assert.match(
    pinBreach([pod('ghcr.io/nvidia/aicr-validators/conformance:v0.11.1')], pins) ?? '',
    /conformance:v0\.11\.1 is not pinned/,
  );
});

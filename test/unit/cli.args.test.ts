// The plugin's command line: kubectl's connection flags pass through to the kubectl it runs,
// in either spelling; its own flags are read; anything else is refused with the flag named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError, parseArgs } from '../../cli/args.ts';

test('kubectl aicr passes --kubeconfig, --context and --as through to kubectl, and reads -o and --timeout itself', () => {
  const a = parseArgs([
    'approve',
    'aicr-rollout-x',
    '--kubeconfig',
    '/k',
    '--context=prod',
    '--as',
    'alice',
    '-o',
    'json',
    '--timeout=90s',
    '--insecure-skip-tls-verify',
  ]);
  assert.equal(a.verb, 'approve');
  assert.deepEqual(a.positional, ['aicr-rollout-x']);
  assert.deepEqual(a.kubectl, ['--kubeconfig=/k', '--context=prod', '--as=alice', '--insecure-skip-tls-verify']);
  assert.equal(a.output, 'json');
  assert.equal(a.timeoutMs, 90_000);
});

test('kubectl aicr refuses an unknown flag, an output format it does not have and a flag without its value, naming them', () => {
  assert.throws(
    () => parseArgs(['describe', '--bogus']),
    (e: Error) => e instanceof UsageError && /unknown flag --bogus/.test(e.message),
  );
  assert.throws(
    () => parseArgs(['describe', '-o', 'wide']),
    (e: Error) => e instanceof UsageError && /-o wide/.test(e.message),
  );
  assert.throws(
    () => parseArgs(['describe', '--as']),
    (e: Error) => e instanceof UsageError && /--as needs a value/.test(e.message),
  );
});

test('ROL-6 kubectl aicr revoke reads --reason in either spelling; retry and revoke are in the usage', async () => {
  assert.equal(parseArgs(['revoke', 'aicr-rollout-x', '--reason', 'wrong window']).reason, 'wrong window');
  assert.equal(parseArgs(['revoke', 'aicr-rollout-x', '--reason=freeze']).reason, 'freeze');
  assert.equal(parseArgs(['retry', 'aicr-rollout-x']).reason, undefined);
  const { USAGE } = await import('../../cli/args.ts');
  assert.match(USAGE, /kubectl aicr revoke NAME \[--reason TEXT\]/);
  assert.match(USAGE, /kubectl aicr retry NAME/);
  assert.match(USAGE, /kubectl aicr refresh-credentials/);
});

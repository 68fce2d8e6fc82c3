// KROP-1 on the test cluster: the kubectl checks the troubleshooting guide gives for every
// stalling reason run as printed, against the real API server with the chart installed and a
// runtime present, and succeed: each names resources, fields and flags that exist. A command
// with a placeholder (`<rollout>`) needs a person's choice and is left out; one that writes
// (annotate, patch, delete) is not a check.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runbook } from '../helpers/runbook.ts';
import { codeCommands, stallEntries } from '../helpers/troubleshooting.ts';
import { createRuntime, deleteRuntime, ensureCrds } from '../../harness/runtime.ts';

const READS = /^kubectl (?:-n \S+ )?(?:get|describe|auth can-i)\b/;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await createRuntime({ aicrVersion: 'v0.0.1', criteria: { service: 'eks' } });
});
after(deleteRuntime);

test('KROP-1 every kubectl check the troubleshooting entries give for a stall runs as printed and succeeds', async () => {
  const checks = new Set<string>();
  for (const { entry } of stallEntries())
    for (const c of codeCommands(entry ?? '')) if (READS.test(c) && !/<[a-z][^>]*>/.test(c)) checks.add(c);
  assert.ok(checks.size >= 10, `the entries give concrete checks: ${[...checks].join('\n')}`);
  const failed: string[] = [];
  for (const c of checks) {
    const r = await runbook(c);
    if (r.code !== 0) failed.push(`${c}\n  exit ${r.code}: ${r.stderr.trim()}`);
  }
  assert.deepEqual(failed, []);
});

// The test environment's stand-in `aicr upgrade-check` (test/env/node/upgradeCheck.ts) run on
// recipe files: its report reads with the control plane's own parser, its exits are the ones
// upgrade-check documents, and the knob steers only changed components.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { parseVerdicts } from '../../shared/rollout/io/assessmentStage.ts';

const SCRIPT = fileURLToPath(new URL('../env/node/upgradeCheck.ts', import.meta.url));

function recipe(overrides: Record<string, unknown> = {}): string {
  const refs = [
    { name: 'cert-manager', namespace: 'cert-manager', chart: 'cert-manager', version: 'v1.17.2' },
    { name: 'gpu-operator', namespace: 'gpu-operator', chart: 'gpu-operator', version: 'v25.3.0', ...overrides },
  ];
  return stringify({ kind: 'RecipeResult', componentRefs: refs, deploymentOrder: ['cert-manager', 'gpu-operator'] });
}

async function run(dir: string, args: string[], knob?: unknown): Promise<{ code: number; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AICR_STAND_IN_KNOB: join(dir, 'knob.json') };
  await (knob === undefined
    ? rm(join(dir, 'knob.json'), { force: true })
    : writeFile(join(dir, 'knob.json'), JSON.stringify(knob)));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), SCRIPT, 'upgrade-check', ...args],
      { env, cwd: dir },
      (err, _stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr });
      },
    );
  });
}

test('the stand-in upgrade-check reports every component safe for a values change by default, exits 0, and says it is a stand-in', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'upgrade-check-'));
  try {
    await writeFile(join(dir, 'from.yaml'), recipe());
    await writeFile(join(dir, 'to.yaml'), recipe({ overrides: { driver: { enabled: false } } }));
    const out = await run(dir, ['--from', 'from.yaml', '--to=to.yaml', '-t', 'json', '-o', 'report.json']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /STAND-IN/);
    const verdicts = parseVerdicts(await readFile(join(dir, 'report.json'), 'utf8'));
    assert.ok(verdicts.ok, verdicts.ok ? '' : verdicts.problem);
    assert.deepEqual(Object.fromEntries(verdicts.output), {
      'cert-manager': { verdict: 'safe', reason: 'STAND_IN_UNCHANGED' },
      'gpu-operator': { verdict: 'safe', reason: 'STAND_IN_VALUES_CHANGED' },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the knob steers changed components only; any verdict but safe exits 2; bad input exits 2 with INVALID_REQUEST', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'upgrade-check-'));
  try {
    await writeFile(join(dir, 'from.yaml'), recipe());
    await writeFile(join(dir, 'to.yaml'), recipe({ version: 'v25.10.0' }));
    const knob = {
      verdicts: { 'gpu-operator': { verdict: 'blocked', reason: 'NO_PATH' }, 'cert-manager': { verdict: 'manual' } },
    };
    const out = await run(dir, ['-f', 'from.yaml', '--to', 'to.yaml', '-o', 'report.json'], knob);
    assert.equal(out.code, 2, out.stderr);
    const verdicts = parseVerdicts(await readFile(join(dir, 'report.json'), 'utf8'));
    assert.ok(verdicts.ok);
    assert.deepEqual(verdicts.output.get('gpu-operator'), { verdict: 'blocked', reason: 'NO_PATH' });
    assert.deepEqual(verdicts.output.get('cert-manager'), { verdict: 'safe', reason: 'STAND_IN_UNCHANGED' });
    const bad = await run(dir, ['--from', 'from.yaml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /\[INVALID_REQUEST\] .*--from and --to/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

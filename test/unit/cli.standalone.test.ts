// The kubectl aicr plugin as a person installs it away from this repository: the package packed
// from plugin/ (which bundles cli/ into one file), installed offline into a prefix of its own and
// run from elsewhere, with no node_modules and no tsx in reach.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
let work: string;
let installed: string;
let tarball: string;

/** A shell with nothing of the repository: the installed bin and a node on PATH, a directory of its own. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: [join(work, 'prefix/bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: work,
    ...extra,
  };
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'aicr-plugin-'));
  await run('npm', ['pack', '--pack-destination', work], { cwd: join(ROOT, 'plugin') });
  const [name] = readdirSync(work).filter((f) => f.endsWith('.tgz'));
  assert.ok(name, 'npm pack made a tarball');
  tarball = join(work, name);
  await run(
    'npm',
    ['install', '--global', '--prefix', join(work, 'prefix'), '--offline', '--no-audit', '--no-fund', tarball],
    { cwd: work, env: plainEnv({ PATH: `${dirname(process.execPath)}:/usr/bin:/bin` }) },
  );
  installed = join(work, 'prefix/bin/kubectl-aicr');
});

test('the package holds one bundled file and its manifest, and needs no other package', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  assert.deepEqual(stdout.trim().split('\n').sort(), ['package/kubectl-aicr.mjs', 'package/package.json']);
  const manifest = JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as Record<
    string,
    unknown
  >;
  assert.equal(manifest['dependencies'], undefined);
  assert.deepEqual(manifest['bin'], { 'kubectl-aicr': 'kubectl-aicr.mjs' });
  const bundle = readFileSync(join(ROOT, 'plugin/kubectl-aicr.mjs'), 'utf8');
  const imported = [...bundle.matchAll(/(?:from |import\(|require\()["']([^"']+)["']/g)].map((m) => m[1] ?? '');
  const builtin = new Set(builtinModules);
  assert.deepEqual(
    imported.filter((s) => !s.startsWith('node:') && !builtin.has(s)),
    [],
    'the bundle loads only Node itself',
  );
});

test('installed, kubectl-aicr prints its usage from anywhere', async () => {
  const { stdout } = await run(installed, ['--help'], { cwd: work, env: plainEnv() });
  assert.match(stdout, /^kubectl aicr: the AICR control plane's commands/);
  assert.match(stdout, /kubectl aicr approve NAME/);
});

test('installed, kubectl-aicr runs its commands through kubectl with the flags it was given, and says what is missing', async () => {
  const argv = join(work, 'kubectl-argv');
  const kubectl = join(work, 'kubectl');
  // A kubectl that answers as the API server does for a runtime that does not exist.
  writeFileSync(
    kubectl,
    `#!/bin/sh\necho "$@" >> ${argv}\necho 'Error from server (NotFound): clusterruntimes.operator.aicr.run "cluster" not found' >&2\nexit 1\n`,
  );
  chmodSync(kubectl, 0o755);
  const err = await run(installed, ['describe', '--context', 'gpu-prod'], {
    cwd: work,
    env: plainEnv({ KUBECTL: kubectl }),
  }).then(
    () => assert.fail('describe succeeded without a runtime'),
    (e: unknown) => e as { code: number; stderr: string },
  );
  assert.equal(err.code, 1);
  assert.match(err.stderr, /there is no ClusterRuntime cluster; create one first/);
  assert.match(readFileSync(argv, 'utf8'), /^--context=gpu-prod get clusterruntimes cluster -o json$/m);
});

// The test knobs' pure parts and the aicr wrapper's claim rule: which requests the registry
// proxy refuses, where it points Locations, and that a forced aicr run is used exactly once,
// by the command it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AICR_RUN_SUFFIX, aicrRunFile, knobPaths } from '../env/knobFiles.ts';
import { aicrKnobPath } from '../env/node/aicrKnob.ts';
import { onProxy, refuses } from '../env/proxy/registryProxy.ts';

const run = promisify(execFile);
const withAuth = { authorization: 'Basic eDp5' };

test('a denial refuses authenticated repository requests in its scope, never the version check', () => {
  const push = { method: 'POST', url: '/v2/aicr/x/blobs/uploads/', headers: withAuth };
  const pull = { method: 'GET', url: '/v2/aicr/x/manifests/v1', headers: withAuth };
  assert.equal(refuses(undefined, push), false);
  assert.equal(refuses({ scope: 'all', message: '' }, push), true);
  assert.equal(refuses({ scope: 'all', message: '' }, pull), true);
  assert.equal(refuses({ scope: 'push', message: '' }, pull), false);
  assert.equal(refuses({ scope: 'pull', message: '' }, { ...pull, method: 'HEAD' }), true);
  assert.equal(
    refuses({ scope: 'all', message: '' }, { ...push, headers: {} }),
    false,
    'no credentials: the registry challenges first',
  );
  assert.equal(refuses({ scope: 'all', message: '' }, { ...pull, url: '/v2/' }), false);
});

test('Locations on the registry address are pointed at the address the client used; others are kept', () => {
  assert.equal(
    onProxy('http://127.0.0.1:5000/v2/a/blobs/uploads/u?_state=s', '127.0.0.1:5000', '127.0.0.1:6000'),
    'http://127.0.0.1:6000/v2/a/blobs/uploads/u?_state=s',
  );
  assert.equal(onProxy('/v2/a/blobs/uploads/u', '127.0.0.1:5000', '127.0.0.1:6000'), '/v2/a/blobs/uploads/u');
});

test('a forced aicr run is claimed once, by its own command, and other runs reach the real aicr', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'aicr-knob-'));
  try {
    const paths = knobPaths(dir);
    assert.deepEqual(
      await aicrKnobPath(join(dir, 'pod'), paths, '/bin/echo'),
      [],
      'nothing stands in front of aicr while no run is forced',
    );
    await run('mkdir', ['-p', paths.aicrRuns]);
    await writeFile(
      join(paths.aicrRuns, `recipe.1${AICR_RUN_SUFFIX}`),
      aicrRunFile('recipe', 0, { code: 6, stderr: 'no recipe\n' }),
    );
    const [bin] = await aicrKnobPath(join(dir, 'pod'), paths, '/bin/echo');
    const aicr = join(bin ?? '', 'aicr');
    assert.deepEqual(await run(aicr, ['--debug', 'bundle', '-r', 'recipe']), {
      stdout: '--debug bundle -r recipe\n',
      stderr: '',
    });
    await assert.rejects(run(aicr, ['recipe', '--os', 'ubuntu']), { code: 6, stderr: 'no recipe\n', stdout: '' });
    assert.deepEqual(await readdir(paths.aicrRuns), [], 'the run file is used up');
    assert.equal((await run(aicr, ['recipe'])).stdout, 'recipe\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with the AICR data overlay present, recipe, bundle and query runs get --data on it unless they give one; other commands do not', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'aicr-knob-'));
  try {
    const paths = knobPaths(dir);
    await run('mkdir', ['-p', paths.aicrData]);
    await writeFile(join(paths.aicrData, 'registry.yaml'), 'components: []\n');
    const [bin] = await aicrKnobPath(join(dir, 'pod'), paths, '/bin/echo');
    const aicr = join(bin ?? '', 'aicr');
    assert.equal(
      (await run(aicr, ['recipe', '--os', 'ubuntu'])).stdout,
      `recipe --os ubuntu --data ${paths.aicrData}\n`,
    );
    assert.equal(
      (await run(aicr, ['--debug', 'bundle', '-r', 'r'])).stdout,
      `--debug bundle -r r --data ${paths.aicrData}\n`,
    );
    assert.equal((await run(aicr, ['query', '--data=/elsewhere'])).stdout, 'query --data=/elsewhere\n');
    assert.equal((await run(aicr, ['snapshot', '-o', 'f'])).stdout, 'snapshot -o f\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

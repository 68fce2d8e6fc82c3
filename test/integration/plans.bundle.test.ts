// The real aicr CLI pushes its Helm bundle to the test registry; the control plane's own OCI
// client pulls it back and builds the plan's releases. What the releases say is checked
// against aicr's own outputs made apart from that path: the recipe a separate `aicr recipe`
// run wrote, and the values of the same bundle rendered to a local directory. Then the ways a
// pull fails: refused credentials (401), a registry policy (403, through the registry proxy),
// a tag that is not there, a registry that does not answer, and layers that are not a bundle.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { parse } from 'yaml';
import { OUTCOME, classify } from '../../shared/classify.ts';
import { BundleUnreadableError, RegistryRefusedError, RegistryUnavailableError } from '../../shared/errors.ts';
import { type PullOptions, pullArtifactFiles } from '../../shared/oci/pull.ts';
import { releasesFromBundle } from '../../shared/plans/fromBundle.ts';
import { manifestsChartVersion } from '../../shared/plans/manifestsChart.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { denyRegistry, withKnob } from '../helpers/knobs.ts';
import { pushBlob, pushManifest } from '../helpers/oci.ts';
import { archive, entry } from '../helpers/tarFixture.ts';

const run = promisify(execFile);
const CHARTS = { repoURL: 'registry.example.com/aicr/charts' };
const RECIPE_ARGS = ['recipe', '--service', 'eks', '--accelerator', 'h100', '--intent', 'training', '--os', 'ubuntu'];

interface RecipeRef {
  readonly name: string;
  readonly chart?: string;
  readonly source?: string;
  readonly version?: string;
}

let work = '';
let repo = '';
let pushedDigest = '';
/** The bundle as the control plane's client pulled it by tag. */
let pulled: Map<string, Uint8Array>;
/** The recipe of the separate `aicr recipe` run, as aicr wrote it. */
let recipe: { deploymentOrder: string[]; componentRefs: RecipeRef[] };

function aicrBin(): string {
  const bin = process.env['TESTENV_AICR_BIN'];
  if (!bin) throw new Error('TESTENV_AICR_BIN is not set: run the test environment (test/env/up.sh)');
  return bin;
}

function dockerConfig(hosts: readonly string[], password = testEnv().TESTENV_REGISTRY_PASSWORD): string {
  const auth = Buffer.from(`${testEnv().TESTENV_REGISTRY_USER}:${password}`).toString('base64');
  return JSON.stringify({ auths: Object.fromEntries(hosts.map((h) => [h, { auth }])) });
}

async function aicr(args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await run(aicrBin(), [...args], {
    cwd: work,
    env: { ...process.env, DOCKER_CONFIG: join(work, 'docker') },
  });
  return stdout + stderr;
}

/** Every regular file under `dir`, by path relative to it. */
async function filesUnder(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile())
      out.set(relative(dir, join(e.parentPath, e.name)), new Uint8Array(await readFile(join(e.parentPath, e.name))));
  }
  return out;
}

const pull = (reference: string, options: Partial<PullOptions> = {}): Promise<Map<string, Uint8Array>> =>
  pullArtifactFiles(reference, {
    plainHTTP: true,
    dockerConfig: dockerConfig([testEnv().TESTENV_REGISTRY, testEnv().TESTENV_REGISTRY_PROXY]),
    ...options,
  });

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'plans-bundle-'));
  await mkdir(join(work, 'docker'));
  await writeFile(join(work, 'docker', 'config.json'), dockerConfig([testEnv().TESTENV_REGISTRY]));
  repo = `aicr/${uniqueName('plans')}`;
  await aicr([...RECIPE_ARGS, '-o', 'recipe.yaml']);
  recipe = parse(await readFile(join(work, 'recipe.yaml'), 'utf8')) as typeof recipe;
  const pushed = await aicr([
    'bundle',
    '-r',
    'recipe.yaml',
    '--deployer',
    'helm',
    '-o',
    `oci://${testEnv().TESTENV_REGISTRY}/${repo}:v1`,
    '--plain-http',
  ]);
  pushedDigest = /OCI artifact pushed successfully: .*digest=(sha256:[0-9a-f]{64})/.exec(pushed)?.[1] ?? '';
  assert.ok(pushedDigest, `aicr reports the digest it pushed:\n${pushed}`);
  await aicr(['bundle', '-r', 'recipe.yaml', '--deployer', 'helm', '-o', 'local']);
  pulled = await pull(`${testEnv().TESTENV_REGISTRY}/${repo}:v1`);
});

after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** checksums.txt as (path, sha256) pairs, paths made relative to `root` when absolute. */
function checksumLines(bytes: Uint8Array | undefined, root: string): [string, string][] {
  const lines = new TextDecoder()
    .decode(bytes)
    .split('\n')
    .filter((l) => l.trim() !== '');
  return lines.map((l) => {
    const [hash = '', path = ''] = l.split(/\s+/);
    return [path.startsWith('/') ? relative(root, path) : path, hash];
  });
}

test('the pulled bundle holds every file of the same bundle rendered locally, byte for byte', async () => {
  const local = await filesUnder(join(work, 'local'));
  assert.ok(local.size > 20 && local.has('recipe.yaml'));
  for (const [path, bytes] of local) {
    // aicr writes absolute paths into the checksums of a pushed bundle (the directory it staged the push in).
    if (path !== 'checksums.txt') assert.deepEqual(pulled.get(path), bytes, path);
  }
  const listed = checksumLines(pulled.get('checksums.txt'), join(work, 'bundle'));
  assert.deepEqual(listed, checksumLines(local.get('checksums.txt'), join(work, 'local')));
  for (const [path, hash] of listed)
    assert.equal(
      createHash('sha256')
        .update(pulled.get(path) ?? '')
        .digest('hex'),
      hash,
      path,
    );
});

test('releases follow the deploymentOrder of the aicr recipe, with the values and manifests of the local bundle', async () => {
  const out = releasesFromBundle(pulled, CHARTS);
  assert.ok(out.ok, out.ok ? '' : out.problem);
  assert.deepEqual(
    out.releases.map((r) => [r.order, r.name]),
    recipe.deploymentOrder.map((name, i) => [i, name]),
  );
  for (const release of out.releases) {
    const dir = join(work, 'local', release.name);
    assert.deepEqual(
      release.values,
      parse(await readFile(join(dir, 'values.yaml'), 'utf8')) ?? {},
      `${release.name} values`,
    );
    const ref = recipe.componentRefs.find((c) => c.name === release.name);
    const chart =
      ref?.chart && ref.source ? { repoURL: CHARTS.repoURL, chart: ref.chart, version: ref.version } : undefined;
    assert.deepEqual(release.chart, chart, `${release.name} chart`);
    const manifests = await filesUnder(join(dir, 'manifests')).catch(() => new Map<string, Uint8Array>());
    const expected =
      manifests.size > 0
        ? { repoURL: CHARTS.repoURL, chart: `${release.name}-manifests`, version: manifestsChartVersion(manifests) }
        : undefined;
    assert.deepEqual(release.manifests, expected, `${release.name} manifests`);
  }
  const customizations = out.releases.find((r) => r.name === 'skyhook-customizations');
  assert.equal(customizations?.chart, undefined, 'a component of manifests only has no chart');
  assert.ok(customizations?.manifests);
  assert.ok(out.releases.find((r) => r.name === 'gpu-operator')?.manifests, 'a chart may bring manifests too');
});

test('the digest aicr reported pulls the same bundle, checked against it', async () => {
  const byDigest = await pull(`oci://${testEnv().TESTENV_REGISTRY}/${repo}@${pushedDigest}`);
  assert.deepEqual(byDigest, pulled);
});

test('a wrong password, or none, is refused with 401; the message names the repository, never the credential', async () => {
  const reference = `${testEnv().TESTENV_REGISTRY}/${repo}:v1`;
  for (const config of [dockerConfig([testEnv().TESTENV_REGISTRY], 'not-the-password'), undefined]) {
    await assert.rejects(
      pull(reference, config === undefined ? { dockerConfig: '{}' } : { dockerConfig: config }),
      (err: unknown) => {
        assert.ok(err instanceof RegistryRefusedError, String(err));
        assert.deepEqual([err.status, err.registry, err.repository], [401, testEnv().TESTENV_REGISTRY, repo]);
        assert.doesNotMatch(err.message, /not-the-password|aicr-puller/);
        return true;
      },
    );
  }
});

test('a registry that refuses by policy answers 403, which the pull reports as such', async () => {
  const reference = `${testEnv().TESTENV_REGISTRY_PROXY}/${repo}:v1`;
  assert.ok((await pull(reference)).has('recipe.yaml'), 'the proxy passes pulls through without the denial');
  await withKnob(denyRegistry({ scope: 'pull' }), async () => {
    await assert.rejects(pull(reference), (err: unknown) => {
      assert.ok(err instanceof RegistryRefusedError, String(err));
      assert.equal(err.status, 403);
      assert.match(err.message, /refused access to aicr\/plans-[^ ]+ \(http 403\): grant the credentials pull access/);
      return true;
    });
  });
});

test('a tag or a repository that is not there makes the bundle unreadable, naming the reference', async () => {
  for (const reference of [
    `${testEnv().TESTENV_REGISTRY}/${repo}:no-such-tag`,
    `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('absent')}:v1`,
  ]) {
    await assert.rejects(pull(reference), (err: unknown) => {
      assert.ok(err instanceof BundleUnreadableError, String(err));
      assert.equal(
        err.message,
        `bundle ${reference}: the registry has no such manifest (http 404): check that AICR pushed it and that it was not deleted`,
      );
      return true;
    });
  }
});

test('a registry that does not answer is transient: the framework retries the work later', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await assert.rejects(pull(`127.0.0.1:${port}/${repo}:v1`), (err: unknown) => {
    assert.ok(err instanceof RegistryUnavailableError, String(err));
    assert.match(err.message, new RegExp(`^registry 127\\.0\\.0\\.1:${port} did not answer: ECONNREFUSED`));
    assert.equal(classify(err).kind, OUTCOME.retryAfter);
    return true;
  });
});

test('layers over the size limits, not gzip, or not a tar make the bundle unreadable', async () => {
  const reference = `${testEnv().TESTENV_REGISTRY}/${repo}:v1`;
  await assert.rejects(
    pull(reference, { limits: { layerBytes: 1024 } }),
    /: the layer is \d+ bytes, over the 1024 bytes the control plane reads$/,
  );
  await assert.rejects(
    pull(reference, { limits: { unpackedBytes: 4096 } }),
    /: the layer unpacks to more than the 4096 bytes the control plane reads$/,
  );
  await assert.rejects(
    pull(reference, { limits: { manifestBytes: 100 } }),
    /: the manifest is larger than the 100 bytes the control plane reads$/,
  );

  const base = `http://${testEnv().TESTENV_REGISTRY}`;
  const config = new TextEncoder().encode('{}');
  const configDescriptor = { digest: await pushBlob(base, repo, config), size: config.length };
  const layers: [string, Uint8Array, RegExp][] = [
    ['not-gzip', new TextEncoder().encode('plain text, not gzip'), /the layer is not valid gzip$/],
    [
      'not-tar',
      gzipSync(new TextEncoder().encode('gzip, but no tar inside '.repeat(40))),
      /the layer is not a readable tar: a header('s)? checksum/,
    ],
    [
      'escapes',
      gzipSync(archive(entry({ name: '../outside.yaml', data: 'x' }))),
      /the layer is not a readable tar: entry "..\/outside.yaml" climbs out of the archive/,
    ],
  ];
  for (const [tag, layer, message] of layers) {
    const layerDescriptor = { digest: await pushBlob(base, repo, layer), size: layer.length };
    await pushManifest(base, repo, tag, {
      layer: layerDescriptor,
      config: configDescriptor,
      layerMediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
    });
    await assert.rejects(
      pull(`${testEnv().TESTENV_REGISTRY}/${repo}:${tag}`),
      (err: unknown) => err instanceof BundleUnreadableError && message.test(err.message),
      tag,
    );
  }
});

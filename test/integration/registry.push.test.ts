// The push half of the lean OCI client, against the real registry and read back by the real
// helm: a component's raw manifests (from a real aicr bundle) packaged as a Helm chart, pushed
// once under <prefix>/<component>-manifests:<version>; a second push of the same chart sends one
// HEAD and nothing else; refusals and outages come back as the pull's error classes do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { RegistryRefusedError, RegistryUnavailableError } from '../../shared/errors.ts';
import { pushArtifact } from '../../shared/oci/push.ts';
import { packageManifestsChart } from '../../shared/plans/manifestsChartPackage.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { denyRegistry, stopRegistry, withKnob } from '../helpers/knobs.ts';

const run = promisify(execFile);
let work = '';
let manifests = new Map<string, Uint8Array>();

function tool(name: 'TESTENV_AICR_BIN' | 'TESTENV_HELM'): string {
  const bin = process.env[name];
  if (!bin) throw new Error(`${name} is not set: run the test environment (test/env/up.sh)`);
  return bin;
}

function dockerConfig(): string {
  const {
    TESTENV_REGISTRY: reg,
    TESTENV_REGISTRY_PROXY: proxy,
    TESTENV_REGISTRY_USER: user,
    TESTENV_REGISTRY_PASSWORD: password,
  } = testEnv();
  const auth = Buffer.from(`${user}:${password}`).toString('base64');
  return JSON.stringify({ auths: { [reg]: { auth }, [proxy]: { auth } } });
}

/** A fetch that counts what it sends, by method. */
function countingFetch(): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  return { sent, fetch: (input, init) => (sent.push(init?.method ?? 'GET'), fetch(input, init)) };
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'registry-push-'));
  const aicr = tool('TESTENV_AICR_BIN');
  await run(aicr, [
    'recipe',
    '--service',
    'eks',
    '--accelerator',
    'h100',
    '--intent',
    'training',
    '--os',
    'ubuntu',
    '-o',
    join(work, 'recipe.yaml'),
  ]);
  await run(aicr, ['bundle', '-r', join(work, 'recipe.yaml'), '--deployer', 'helm', '-o', join(work, 'bundle')]);
  const dir = join(work, 'bundle', 'gpu-operator', 'manifests');
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile())
      manifests.set(
        relative(dir, join(e.parentPath, e.name)),
        new Uint8Array(await readFile(join(e.parentPath, e.name))),
      );
  }
  // Text Helm would read as a template if the chart held the file as a template itself.
  manifests.set(
    'zz-braces.yaml',
    new TextEncoder().encode(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: braces\ndata:\n  line: "{{ .Values.notATemplate }}"\n',
    ),
  );
  await writeFile(join(work, 'registry.json'), dockerConfig());
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
  manifests = new Map();
});

test("a component's manifests pushed as a Helm chart: helm renders every file verbatim from the registry; a second push sends one HEAD", async (t) => {
  const chart = packageManifestsChart('gpu-operator', manifests);
  const repo = `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('mirror')}/${chart.name}`;
  const started = Date.now();
  const first = await pushArtifact(`${repo}:${chart.version}`, chart.artifact, {
    plainHTTP: true,
    dockerConfig: dockerConfig(),
  });
  t.diagnostic(`first push of ${chart.artifact.layers[0]?.bytes.length} layer bytes took ${Date.now() - started} ms`);
  assert.equal(first.pushed, true);
  const { stdout } = await run(tool('TESTENV_HELM'), [
    'template',
    'r',
    `oci://${repo}`,
    '--version',
    chart.version,
    '--plain-http',
    '--registry-config',
    join(work, 'registry.json'),
  ]);
  // helm prints each YAML document on its own under a "# Source:" line: compare document by document.
  for (const [path, bytes] of manifests) {
    const docs = new TextDecoder()
      .decode(bytes)
      .split(/^---\s*$/m)
      .map((d) => d.trim())
      .filter((d) => d !== '');
    for (const doc of docs) assert.ok(stdout.includes(doc), `${path} is rendered as written`);
  }
  assert.ok(manifests.size > 1);

  const counting = countingFetch();
  const again = Date.now();
  const second = await pushArtifact(
    `${repo}:${chart.version}`,
    packageManifestsChart('gpu-operator', manifests).artifact,
    { plainHTTP: true, dockerConfig: dockerConfig(), fetch: counting.fetch },
  );
  t.diagnostic(`second push took ${Date.now() - again} ms`);
  assert.deepEqual(second, { digest: first.digest, pushed: false }, 'the same files give the same digest');
  assert.deepEqual(counting.sent, ['HEAD']);
});

test('REG-2 a push the registry refuses by policy (403) is RegistryRefusedError; without credentials, 401', async () => {
  const chart = packageManifestsChart('gpu-operator', manifests);
  const repo = `aicr/${uniqueName('mirror')}/${chart.name}:${chart.version}`;
  await withKnob(denyRegistry({ scope: 'push' }), async () => {
    await assert.rejects(
      pushArtifact(`${testEnv().TESTENV_REGISTRY_PROXY}/${repo}`, chart.artifact, {
        plainHTTP: true,
        dockerConfig: dockerConfig(),
      }),
      (err: unknown) => err instanceof RegistryRefusedError && err.status === 403,
    );
  });
  await assert.rejects(
    pushArtifact(`${testEnv().TESTENV_REGISTRY}/${repo}`, chart.artifact, { plainHTTP: true }),
    (err: unknown) => err instanceof RegistryRefusedError && err.status === 401,
  );
});

test('REG-1 a push while the registry is down is RegistryUnavailableError (retried as transient)', async () => {
  const chart = packageManifestsChart('gpu-operator', manifests);
  await withKnob(stopRegistry(), async () => {
    await assert.rejects(
      pushArtifact(
        `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('mirror')}/${chart.name}:${chart.version}`,
        chart.artifact,
        { plainHTTP: true, dockerConfig: dockerConfig() },
      ),
      (err: unknown) => err instanceof RegistryUnavailableError && /ECONNREFUSED/.test(err.message),
    );
  });
});

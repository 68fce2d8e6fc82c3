// Copying an upstream chart into the cluster's registry, with a loopback chart repository
// standing in for upstream (upstream repositories are out of reach in tests): a small fixture
// chart, packaged and indexed by the real helm, served over HTTP; copied to the real registry;
// read back by the real helm. A second copy reads the index and one manifest and pushes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { ChartSourceError } from '../../shared/errors.ts';
import { copyChart } from '../../shared/oci/chartCopy.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';

const run = promisify(execFile);
const CHART = { chart: 'fixture-operator', version: '1.2.3' };
let work = '';
let server: Server | undefined;
let source = '';
const served: string[] = [];

function helm(): string {
  const bin = process.env['TESTENV_HELM'];
  if (!bin) throw new Error('TESTENV_HELM is not set: run the test environment (test/env/up.sh)');
  return bin;
}

function dockerConfig(): string {
  const { TESTENV_REGISTRY: reg, TESTENV_REGISTRY_USER: user, TESTENV_REGISTRY_PASSWORD: password } = testEnv();
  return JSON.stringify({ auths: { [reg]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } });
}

/** Serves work/repo under /charts/, recording each path asked for. */
async function serve(root: string): Promise<string> {
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^\/charts\//, '');
    served.push(path);
    readFile(join(root, path)).then(
      (body) => res.writeHead(200).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/charts`;
}

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'chart-copy-'));
  const dir = join(work, 'src', CHART.chart);
  await mkdir(join(dir, 'templates'), { recursive: true });
  await writeFile(
    join(dir, 'Chart.yaml'),
    `apiVersion: v2\nname: ${CHART.chart}\nversion: ${CHART.version}\ndescription: a fixture chart\n`,
  );
  await writeFile(
    join(dir, 'templates', 'cm.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-fixture\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
  );
  await writeFile(join(dir, 'values.yaml'), 'greeting: hello from the fixture\n');
  await mkdir(join(work, 'repo'));
  await run(helm(), ['package', dir, '-d', join(work, 'repo')]);
  await run(helm(), ['repo', 'index', join(work, 'repo')]);
  source = await serve(join(work, 'repo'));
  await writeFile(join(work, 'registry.json'), dockerConfig());
});
after(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (work) await rm(work, { recursive: true, force: true });
});

test('an upstream chart is copied to <prefix>/<chart>:<version> as an OCI Helm chart helm renders; a second copy downloads and pushes nothing', async (t) => {
  const target = `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('upstream')}/${CHART.chart}:${CHART.version}`;
  const started = Date.now();
  const first = await copyChart({ source, ...CHART }, target, { plainHTTP: true, dockerConfig: dockerConfig() });
  t.diagnostic(`first copy took ${Date.now() - started} ms`);
  assert.equal(first.pushed, true);
  const repo = target.slice(0, target.lastIndexOf(':'));
  const { stdout } = await run(helm(), [
    'template',
    'r',
    `oci://${repo}`,
    '--version',
    CHART.version,
    '--plain-http',
    '--registry-config',
    join(work, 'registry.json'),
  ]);
  assert.match(stdout, /name: r-fixture\n/);
  assert.match(stdout, /greeting: "hello from the fixture"/);

  served.length = 0;
  const sent: string[] = [];
  const counting: typeof fetch = (input, init) => (sent.push(init?.method ?? 'GET'), fetch(input, init));
  const again = Date.now();
  const second = await copyChart({ source, ...CHART }, target, {
    plainHTTP: true,
    dockerConfig: dockerConfig(),
    fetch: counting,
  });
  t.diagnostic(`second copy took ${Date.now() - again} ms`);
  assert.deepEqual(second, { digest: first.digest, pushed: false });
  assert.deepEqual(served, ['index.yaml'], 'only the index is read upstream');
  assert.ok(!sent.includes('PUT') && !sent.includes('POST'), `nothing is pushed: ${sent.join(', ')}`);
});

test('a chart in an OCI registry (oci://…) is copied too, blob for blob; a second copy reads one manifest at the source and pushes nothing', async () => {
  const upstream = `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('oci-upstream')}`;
  await copyChart({ source, ...CHART }, `${upstream}/${CHART.chart}:${CHART.version}`, {
    plainHTTP: true,
    dockerConfig: dockerConfig(),
  });
  const target = `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('mirror')}/${CHART.chart}:${CHART.version}`;
  const first = await copyChart({ source: `oci://${upstream}`, ...CHART }, target, {
    plainHTTP: true,
    dockerConfig: dockerConfig(),
  });
  assert.equal(first.pushed, true);
  const { stdout } = await run(helm(), [
    'template',
    'r',
    `oci://${target.slice(0, target.lastIndexOf(':'))}`,
    '--version',
    CHART.version,
    '--plain-http',
    '--registry-config',
    join(work, 'registry.json'),
  ]);
  assert.match(stdout, /greeting: "hello from the fixture"/);
  const sent: string[] = [];
  const counting: typeof fetch = (input, init) => (sent.push(init?.method ?? 'GET'), fetch(input, init));
  const second = await copyChart({ source: `oci://${upstream}`, ...CHART }, target, {
    plainHTTP: true,
    dockerConfig: dockerConfig(),
    fetch: counting,
  });
  assert.deepEqual(second, { digest: first.digest, pushed: false });
  assert.deepEqual(sent, ['GET', 'GET'], 'the source manifest and the target manifest, nothing else');
  await assert.rejects(
    copyChart({ source: `oci://${upstream}`, chart: CHART.chart, version: '9.9.9' }, target, {
      plainHTTP: true,
      dockerConfig: dockerConfig(),
    }),
    ChartSourceError,
  );
});

test('a version the chart repository does not have is a ChartSourceError naming the chart, the version and the repository', async () => {
  const target = `${testEnv().TESTENV_REGISTRY}/aicr/${uniqueName('upstream')}/${CHART.chart}:9.9.9`;
  await assert.rejects(
    copyChart({ source, chart: CHART.chart, version: '9.9.9' }, target, {
      plainHTTP: true,
      dockerConfig: dockerConfig(),
    }),
    (err: unknown) => {
      assert.ok(err instanceof ChartSourceError, String(err));
      assert.equal(err.message, `chart repository ${source} has no chart ${CHART.chart} at version 9.9.9`);
      return true;
    },
  );
});

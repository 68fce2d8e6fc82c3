// A registry or chart repository the function cannot reach: a server that takes the TCP
// connection and never answers, as a registry behind a dropped network path looks. Each request
// ends at the Kubernetes client's connect timeout or at a total timeout cut short to end before
// the invocation's reserve, as a transient error naming the host and which timeout it was, so the
// step's retry takes it instead of a Lambda timeout.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { DEADLINE_RESERVE_MS, withDeadline } from '../../shared/deadline.ts';
import { DeadlineError, RegistryUnavailableError, TransientError } from '../../shared/errors.ts';
import { CONNECT_TIMEOUT_MS } from '../../shared/kube/rest.ts';
import { copyChart } from '../../shared/oci/chartCopy.ts';
import { pullArtifactFiles } from '../../shared/oci/pull.ts';
import { silentServer } from '../helpers/silentServer.ts';

const blackhole = await silentServer();
const { host } = blackhole;

// Answers a manifest's head and the first bytes of its body, then nothing more.
const stalling = createHttpServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'content-length': '100' });
  res.write('{"schemaVersion":');
});
await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
const stallingAddress = stalling.address();
const stallingHost = `127.0.0.1:${typeof stallingAddress === 'object' && stallingAddress ? stallingAddress.port : 0}`;

after(() => {
  blackhole.close();
  stalling.closeAllConnections();
  stalling.close();
});

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

test('a registry that never completes the TLS handshake fails the pull at the connect timeout, naming the registry', async () => {
  const started = Date.now();
  const err = await failure(pullArtifactFiles(`${host}/a/b:v1`, { plainHTTP: false }));
  const took = Date.now() - started;
  assert.ok(err instanceof RegistryUnavailableError, `got ${String(err)}`);
  assert.equal(
    err.message,
    `registry ${host} did not answer: connect timed out after ${CONNECT_TIMEOUT_MS / 1000} s (manifest of ${host}/a/b:v1); retrying`,
  );
  assert.ok(took >= CONNECT_TIMEOUT_MS - 100 && took < CONNECT_TIMEOUT_MS + 1_000, `ended after ${took} ms`);
});

test('a registry that takes the connection and never answers fails at the total timeout, cut short to end before the reserve', async () => {
  const deadlineMs = DEADLINE_RESERVE_MS + 1_000;
  const started = Date.now();
  const err = await failure(withDeadline(deadlineMs, () => pullArtifactFiles(`${host}/a/b:v1`, { plainHTTP: true })));
  const took = Date.now() - started;
  assert.ok(err instanceof RegistryUnavailableError, `got ${String(err)}`);
  assert.match(
    err.message,
    new RegExp(
      `^registry ${host.replaceAll('.', '\\.')} did not answer: no answer within (0\\.9|1) s \\(manifest of .*\\); retrying$`,
    ),
  );
  assert.ok(took >= 900 && took < 1_500, `ended after ${took} ms, the deadline was ${deadlineMs} ms away`);
});

test("outside a deadline a registry request's total timeout is its own", async () => {
  const started = Date.now();
  const err = await failure(pullArtifactFiles(`${host}/a/b:v1`, { plainHTTP: true, timeoutMs: 300 }));
  assert.ok(err instanceof RegistryUnavailableError, `got ${String(err)}`);
  assert.match(err.message, /did not answer: no answer within 0\.3 s/);
  assert.ok(Date.now() - started < 1_000);
});

test('with less than the reserve left a registry request is not sent: a DeadlineError hands the work to a retry', async () => {
  const before = blackhole.connections();
  const err = await failure(
    withDeadline(DEADLINE_RESERVE_MS - 1, () => pullArtifactFiles(`${host}/a/b:v1`, { plainHTTP: true })),
  );
  assert.ok(err instanceof DeadlineError, `got ${String(err)}`);
  assert.match(err.message, /too little time left in this invocation for a registry request; handed to a retry/);
  assert.equal(blackhole.connections(), before, 'no connection was made');
});

test('a registry that stops sending a body part way is cut off by the same total timeout', async () => {
  const started = Date.now();
  const err = await failure(pullArtifactFiles(`${stallingHost}/a/b:v1`, { plainHTTP: true, timeoutMs: 500 }));
  assert.ok(err instanceof RegistryUnavailableError, `got ${String(err)}`);
  assert.match(
    err.message,
    new RegExp(`^registry ${stallingHost.replaceAll('.', '\\.')} broke off the manifest: no answer within 0\\.5 s`),
  );
  assert.ok(Date.now() - started < 1_500);
});

test('a chart repository that never answers fails the copy at the total timeout, naming the host and the timeout', async () => {
  const started = Date.now();
  const up = { source: `http://${host}/charts`, chart: 'cert-manager', version: 'v1.0.0' };
  const err = await failure(
    withDeadline(DEADLINE_RESERVE_MS + 1_000, () =>
      copyChart(up, 'registry.invalid/aicr/cert-manager:v1.0.0', { plainHTTP: true }),
    ),
  );
  assert.ok(err instanceof TransientError, `got ${String(err)}`);
  assert.match(
    err.message,
    new RegExp(
      `^chart repository ${host.replaceAll('.', '\\.')} did not answer \\(index: no answer within (0\\.9|1) s\\); retrying$`,
    ),
  );
  assert.ok(Date.now() - started < 1_500);
});

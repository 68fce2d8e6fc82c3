// The fetch the control plane's registry, chart repository and EKS requests go through: what it
// keeps of the built-in fetch (redirects, credentials dropped off-origin, decoded bodies) and what
// it adds (a connect timeout, told apart from a total timeout).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { type IncomingMessage, createServer as createHttpServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { NetworkTimeoutError, httpFetch, requestSignal, timeoutFailure } from '../../shared/httpFetch.ts';
import { silentServer } from '../helpers/silentServer.ts';

const silent = await silentServer();
const silentHost = silent.host;

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
}
const seen: Seen[] = [];
const read = async (req: IncomingMessage): Promise<string> => {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  return body;
};
const server = createHttpServer((req, res) => {
  void read(req).then((body) => {
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
    if (req.url === '/upload') return void res.writeHead(303, { location: '/done' }).end();
    if (req.url === '/moved') return void res.writeHead(307, { location: '/done' }).end();
    if (req.url === '/gzipped')
      return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('entries: {}\n'));
    res.writeHead(200, { 'x-answer': 'yes' }).end(`done ${req.method ?? ''}`);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const serverAddress = server.address();
const base = `http://127.0.0.1:${typeof serverAddress === 'object' && serverAddress ? serverAddress.port : 0}`;

after(() => {
  silent.close();
  server.close();
});

const doFetch = httpFetch(200);

test('a TLS handshake that never completes is a connect timeout; a taken connection that never answers is the total timeout', async () => {
  const connect = await doFetch(`https://${silentHost}/`, { signal: requestSignal(5_000, 'a test request') }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(connect instanceof NetworkTimeoutError, `got ${String(connect)}`);
  assert.equal(timeoutFailure(connect), 'connect timed out after 0.2 s');
  const answer = await doFetch(`http://${silentHost}/`, { signal: requestSignal(300, 'a test request') }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.equal(timeoutFailure(answer), 'no answer within 0.3 s');
  assert.equal(
    timeoutFailure(
      new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }) }),
    ),
    'connect timed out',
  );
  assert.equal(timeoutFailure(new Error('ECONNREFUSED')), undefined);
});

test('a 303 after a POST is followed with a GET and no body; a 307 keeps the method, the body and, on the same origin, the authorization', async () => {
  seen.length = 0;
  const body = new TextEncoder().encode('blob');
  const after303 = await doFetch(`${base}/upload`, { method: 'POST', headers: { Authorization: 'Basic x' }, body });
  assert.equal(await after303.text(), 'done GET');
  const after307 = await doFetch(`${base}/moved`, { method: 'PUT', headers: { Authorization: 'Basic x' }, body });
  assert.equal(await after307.text(), 'done PUT');
  assert.deepEqual(seen, [
    { method: 'POST', url: '/upload', authorization: 'Basic x', body: 'blob' },
    { method: 'GET', url: '/done', authorization: 'Basic x', body: '' },
    { method: 'PUT', url: '/moved', authorization: 'Basic x', body: 'blob' },
    { method: 'PUT', url: '/done', authorization: 'Basic x', body: 'blob' },
  ]);
});

test('a HEAD answer has headers and no body; a gzipped answer is decoded', async () => {
  const head = await doFetch(`${base}/`, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('x-answer'), 'yes');
  assert.equal(head.body, null);
  assert.equal(await (await doFetch(`${base}/gzipped`, {})).text(), 'entries: {}\n');
});

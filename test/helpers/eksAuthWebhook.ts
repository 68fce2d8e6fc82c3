// A loopback TokenReview webhook standing in for EKS's IAM authenticator, so the real
// kube-apiserver authenticates the control plane's real EKS tokens. It checks the token's
// shape as EKS does, asks moto's STS whose credentials signed it, and maps the role to a
// user and groups as an access entry would. (moto checks no signatures, so a token signed
// for another cluster name is not caught here; the byte-for-byte signer test covers signing.)
import { createServer } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { testEnv } from '../../harness/env.ts';

export interface AccessEntry {
  readonly roleArn: string;
  readonly groups: readonly string[];
}

export interface Review {
  readonly authenticated: boolean;
  readonly username?: string;
  readonly error?: string;
}

const ALLOWED_PARAMS = new Set([
  'Action',
  'Version',
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
  'X-Amz-SignedHeaders',
]);

function signedAt(url: URL): number {
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(url.searchParams.get('X-Amz-Date') ?? '');
  if (!d) throw new Error('no signing date');
  return Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(d[4]), Number(d[5]), Number(d[6]));
}

function checkShape(url: URL, region: string): void {
  if (url.protocol !== 'https:' || url.host !== `sts.${region}.amazonaws.com` || url.pathname !== '/')
    throw new Error(`unexpected STS endpoint ${url.host}`);
  for (const k of url.searchParams.keys()) if (!ALLOWED_PARAMS.has(k)) throw new Error(`unexpected parameter ${k}`);
  if (url.searchParams.get('Action') !== 'GetCallerIdentity') throw new Error('not GetCallerIdentity');
  if (!(url.searchParams.get('X-Amz-SignedHeaders') ?? '').split(';').includes('x-k8s-aws-id'))
    throw new Error('x-k8s-aws-id is not signed');
}

function parseToken(token: string, region: string, nowMs: number): URL {
  if (!token.startsWith('k8s-aws-v1.')) throw new Error('not an EKS token');
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString());
  checkShape(url, region);
  const at = signedAt(url);
  if (nowMs - at > 15 * 60_000 || at - nowMs > 60_000) throw new Error('token expired');
  return url;
}

/** Asks moto's STS who signed the URL; moto routes by the Authorization header, so the presigned credential moves there. */
async function callerArn(url: URL): Promise<string> {
  const q = url.searchParams;
  const res = await fetch(`${testEnv().AWS_ENDPOINT_URL}/?Action=GetCallerIdentity&Version=2011-06-15`, {
    headers: {
      authorization: `AWS4-HMAC-SHA256 Credential=${q.get('X-Amz-Credential')}, SignedHeaders=${q.get('X-Amz-SignedHeaders')}, Signature=${q.get('X-Amz-Signature')}`,
      'x-amz-date': q.get('X-Amz-Date') ?? '',
      ...(q.get('X-Amz-Security-Token') ? { 'x-amz-security-token': q.get('X-Amz-Security-Token') ?? '' } : {}),
    },
  });
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(await res.text())?.[1];
  if (!res.ok || !arn) throw new Error(`STS refused the token: HTTP ${res.status}`);
  return arn;
}

function review(
  authenticated: boolean,
  user?: { username: string; groups: readonly string[] },
  error?: string,
): string {
  return JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    status: {
      authenticated,
      ...(user ? { user: { username: user.username, groups: [...user.groups] } } : {}),
      ...(error ? { error } : {}),
    },
  });
}

export interface EksAuthWebhook {
  readonly configFile: string;
  readonly reviews: Review[];
  stop(): Promise<void>;
}

export async function startEksAuthWebhook(opts: {
  region: string;
  entries: readonly AccessEntry[];
}): Promise<EksAuthWebhook> {
  const pki = join(testEnv().TESTENV_STATE, 'pki');
  const reviews: Review[] = [];
  const server = createServer(
    { cert: readFileSync(join(pki, 'serving.crt')), key: readFileSync(join(pki, 'serving.key')) },
    (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        void (async () => {
          const token = (JSON.parse(body) as { spec: { token: string } }).spec.token;
          try {
            const arn = await callerArn(parseToken(token, opts.region, Date.now()));
            const m = /^arn:aws:sts::(\d{12}):assumed-role\/([^/]+)\/(.+)$/.exec(arn);
            const entry = m && opts.entries.find((e) => e.roleArn === `arn:aws:iam::${m[1]}:role/${m[2]}`);
            if (!entry) throw new Error(`no access entry for ${arn}`);
            reviews.push({ authenticated: true, username: arn });
            res.end(review(true, { username: arn, groups: entry.groups }));
          } catch (err) {
            reviews.push({ authenticated: false, error: (err as Error).message });
            res.end(review(false, undefined, (err as Error).message));
          }
        })();
      });
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const configFile = join(testEnv().TESTENV_STATE, `eks-webhook-${port}.kubeconfig`);
  writeFileSync(
    configFile,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'eks-auth',
          cluster: { server: `https://127.0.0.1:${port}/authenticate`, 'certificate-authority': join(pki, 'ca.crt') },
        },
      ],
      users: [{ name: 'kube-apiserver', user: {} }],
      contexts: [{ name: 'webhook', context: { cluster: 'eks-auth', user: 'kube-apiserver' } }],
      'current-context': 'webhook',
    }),
  );
  return { configFile, reviews, stop: () => new Promise((r) => server.close(() => r())) };
}

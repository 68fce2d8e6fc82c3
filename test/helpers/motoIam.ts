// A moto server of its own with IAM enforcement on, beside the test environment's (which enforces
// nothing, and which other tests rely on). Its first three requests make an administrator; every
// request after them must be signed by a known key and allowed by that key's policies, as in AWS.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { freePort } from './apiserver.ts';

export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface IamMoto {
  readonly endpoint: string;
  readonly region: string;
  readonly account: string;
  /** Keys of a user allowed everything: for setting up what the functions find in place. */
  readonly admin: Credentials;
  readonly adminArn: string;
  stop(): Promise<void>;
}

export interface AwsAnswer {
  readonly status: number;
  readonly text: string;
}

/** One SigV4-signed request, for the calls the control plane's own dependencies have no client for (IAM, STS, EKS, logs). */
export async function signedRequest(
  endpoint: string,
  credentials: Credentials,
  req: {
    service: string;
    region: string;
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<AwsAnswer> {
  const url = new URL(req.path, endpoint);
  const query = Object.fromEntries(url.searchParams);
  const request = new HttpRequest({
    method: req.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query,
    headers: { host: url.host, ...(req.headers ?? {}) },
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const signer = new SignatureV4({ service: req.service, region: req.region, credentials, sha256: Sha256 });
  const signed = await signer.sign(request);
  const res = await fetch(url, {
    method: req.method,
    headers: signed.headers,
    ...(req.body === undefined ? {} : { body: req.body }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/** An IAM or STS query-protocol action; throws with the answer unless it succeeds. */
export async function queryAction(
  moto: Pick<IamMoto, 'endpoint' | 'region'>,
  credentials: Credentials,
  service: 'iam' | 'sts',
  params: Record<string, string>,
): Promise<string> {
  const version = service === 'iam' ? '2010-05-08' : '2011-06-15';
  const body = new URLSearchParams({ Version: version, ...params }).toString();
  const answer = await signedRequest(moto.endpoint, credentials, {
    service,
    region: moto.region,
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  if (answer.status !== 200)
    throw new Error(`${service} ${params['Action'] ?? ''} answered ${answer.status}: ${answer.text}`);
  return answer.text;
}

/** The text of one XML element of an answer. */
export function xmlField(xml: string, name: string): string {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (!m?.[1]) throw new Error(`no ${name} in ${xml}`);
  return m[1];
}

async function waitUp(endpoint: string, proc: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`the enforcing moto exited; see ${log}`);
    // The emulator's own API does not count towards the unauthenticated requests.
    const up = await fetch(`${endpoint}/moto-api/`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the enforcing moto did not answer within 60 s; see ${log}`);
}

/** The emulator test/env/bootstrap.sh installs; only it is needed, not the rest of the environment. */
function motoServer(): string {
  const cache =
    process.env['TESTENV_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache'), 'aicr-testenv');
  const bin = join(process.env['TESTENV_VENV'] ?? join(cache, 'venv'), 'bin/moto_server');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run test/env/bootstrap.sh first`);
  return bin;
}

export async function startIamMoto(): Promise<IamMoto> {
  const port = await freePort();
  const log = join(mkdtempSync(join(tmpdir(), 'aicr-moto-iam-')), 'moto.log');
  const proc = spawn(motoServer(), ['-H', '127.0.0.1', '-p', String(port)], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], INITIAL_NO_AUTH_ACTION_COUNT: '3' },
    stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')],
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  try {
    await waitUp(endpoint, proc, log);
    const region = 'us-east-1';
    // Any key signs the first three requests; the ones after need the key these make.
    const bootstrap: Credentials = { accessKeyId: 'AKIABOOTSTRAPBOOTSTR', secretAccessKey: 'bootstrap' };
    const at = { endpoint, region };
    const user = await queryAction(at, bootstrap, 'iam', { Action: 'CreateUser', UserName: 'aicr-test-admin' });
    const adminArn = xmlField(user, 'Arn');
    await queryAction(at, bootstrap, 'iam', {
      Action: 'PutUserPolicy',
      UserName: 'aicr-test-admin',
      PolicyName: 'everything',
      PolicyDocument: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }],
      }),
    });
    const key = await queryAction(at, bootstrap, 'iam', { Action: 'CreateAccessKey', UserName: 'aicr-test-admin' });
    const admin = { accessKeyId: xmlField(key, 'AccessKeyId'), secretAccessKey: xmlField(key, 'SecretAccessKey') };
    const account = adminArn.split(':')[4] ?? '';
    // Enforcement is on from here: an unknown key must now be refused, or nothing below proves anything.
    const probe = await signedRequest(endpoint, bootstrap, {
      service: 'sts',
      region,
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'Action=GetCallerIdentity&Version=2011-06-15',
    });
    if (probe.status !== 403)
      throw new Error(
        `the emulator accepted an unknown key after bootstrap (HTTP ${probe.status}): IAM enforcement is off`,
      );
    return { endpoint, region, account, admin, adminArn, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Credentials of a role, through sts:AssumeRole as the administrator (the test's stand-in for Lambda's own assumption). */
export async function assumeRole(moto: IamMoto, roleArn: string): Promise<Credentials> {
  const xml = await queryAction(moto, moto.admin, 'sts', {
    Action: 'AssumeRole',
    RoleArn: roleArn,
    RoleSessionName: 'function',
  });
  return {
    accessKeyId: xmlField(xml, 'AccessKeyId'),
    secretAccessKey: xmlField(xml, 'SecretAccessKey'),
    sessionToken: xmlField(xml, 'SessionToken'),
  };
}

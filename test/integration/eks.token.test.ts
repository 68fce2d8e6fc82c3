// The EKS token signer produces exactly the URL botocore (what `aws eks get-token` uses)
// presigns for the same credentials and time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eksToken, presignedIdentityUrl } from '../../shared/kube/eksToken.ts';
import { testEnv } from '../../harness/env.ts';

const run = promisify(execFile);
const REFERENCE = new URL('../fixtures/eks_token_reference.py', import.meta.url).pathname;

interface Case {
  cluster: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  time: string;
}

async function botocoreUrl(c: Case): Promise<string> {
  const { stdout } = await run(join(testEnv().TESTENV_VENV, 'bin/python'), [REFERENCE, JSON.stringify(c)], {
    env: { PATH: process.env['PATH'] },
  });
  return stdout.trim();
}

const CASES: Case[] = [
  {
    cluster: 'gpu-prod',
    region: 'us-west-2',
    accessKeyId: 'ASIAEXAMPLE0001',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    sessionToken: 'IQoJb3JpZ2luX2VjE//session+token/==',
    time: '2026-11-30T10:00:00Z',
  },
  {
    cluster: 'a.b_c-d',
    region: 'eu-central-1',
    accessKeyId: 'AKIAEXAMPLE0002',
    secretAccessKey: 'secret/with+chars=',
    time: '2027-02-28T23:59:59Z',
  },
];

for (const c of CASES) {
  test(`the presigned URL matches botocore byte for byte (${c.region}, ${c.sessionToken ? 'session' : 'long-term'} credentials)`, async () => {
    const credentials = {
      accessKeyId: c.accessKeyId,
      secretAccessKey: c.secretAccessKey,
      ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}),
    };
    const ours = await presignedIdentityUrl({
      clusterName: c.cluster,
      region: c.region,
      credentials,
      now: new Date(c.time),
    });
    assert.equal(ours, await botocoreUrl(c));
    assert.match(ours, /X-Amz-SignedHeaders=host%3Bx-k8s-aws-id/);
  });
}

test('the token is k8s-aws-v1. and the URL in unpadded base64url', async () => {
  const req = {
    clusterName: 'c',
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIA', secretAccessKey: 's' },
    now: new Date('2026-11-30T10:00:00Z'),
  };
  const token = await eksToken(req);
  assert.match(token, /^k8s-aws-v1\.[A-Za-z0-9_-]+$/);
  assert.equal(Buffer.from(token.slice(11), 'base64url').toString(), await presignedIdentityUrl(req));
});

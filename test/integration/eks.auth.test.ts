// The Lambda path authenticates to a real kube-apiserver the way EKS expects: a real EKS
// token from the function's role credentials (moto STS), checked by a TokenReview webhook
// that maps the role to the resolve step's own group, authorized by the chart's RBAC.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
import { IDENTITY_GROUP } from '../../shared/api/constants.ts';
import type { AwsCredentials } from '../../shared/kube/eksToken.ts';
import { KubeRequestError } from '../../shared/errors.ts';
import { eksKube as makeEksKube } from '../../shared/kube/eks.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { encodeWorkItem, runtimeGroup } from '../../shared/queue/workItem.ts';
import { startExtraApiServer, type ExtraApiServer } from '../helpers/apiserver.ts';
import { readAudit } from '../../harness/audit.ts';
import { startEksAuthWebhook, type EksAuthWebhook } from '../helpers/eksAuthWebhook.ts';
import { awsClientConfig, resetMoto, testEnv } from '../../harness/env.ts';
import { createFifoWithDlq, createQueue, SqsLambdaDriver, type SqsHandler } from '../../harness/sqsDriver.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../../harness/runtime.ts';

const RESOLVE_GROUP = IDENTITY_GROUP.step('resolve');

const ROLE = 'arn:aws:iam::123456789012:role/aicr-control-plane-resolve';
const CLUSTER = 'aicr-test';
let webhook: EksAuthWebhook;
let server: ExtraApiServer;
let creds: AwsCredentials;
const caData = (): string => readFileSync(join(testEnv().TESTENV_STATE, 'pki', 'ca.crt')).toString('base64');

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await resetMoto();
  webhook = await startEksAuthWebhook({ region: 'us-east-1', entries: [{ roleArn: ROLE, groups: [RESOLVE_GROUP] }] });
  server = await startExtraApiServer('apiserver-eks', [
    `--authentication-token-webhook-config-file=${webhook.configFile}`,
    '--authentication-token-webhook-version=v1',
  ]);
  const sts = new STSClient(awsClientConfig());
  const assumed = (await sts.send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'lambda-resolve' })))
    .Credentials;
  assert.ok(assumed?.AccessKeyId && assumed.SecretAccessKey && assumed.SessionToken);
  creds = {
    accessKeyId: assumed.AccessKeyId,
    secretAccessKey: assumed.SecretAccessKey,
    sessionToken: assumed.SessionToken,
  };
});
after(async () => {
  await server.stop();
  await webhook.stop();
  await deleteRuntime();
});

const eksKube = (now: () => number = Date.now): KubePort =>
  makeEksKube(
    { clusterName: CLUSTER, endpoint: server.url, caData: caData(), region: 'us-east-1' },
    () => Promise.resolve(creds),
    now,
  );

test('the Lambda handler reaches the API server with a real EKS token and writes status as its role', async () => {
  const sqs = new SQSClient(awsClientConfig());
  const { queue } = await createFifoWithDlq(sqs, 'aicr-resolve', { visibilitySeconds: 1, maxReceiveCount: 3 });
  const delay = await createQueue(sqs, 'aicr-delay');
  // The function's environment as serverless.yml sets it, with the role's credentials as Lambda provides them.
  Object.assign(process.env, {
    AICR_RESOLVE_QUEUE_URL: queue.url,
    AICR_DELAY_QUEUE_URL: delay.url,
    AICR_EKS_CLUSTER_NAME: CLUSTER,
    AICR_EKS_ENDPOINT: server.url,
    AICR_EKS_CA_DATA: caData(),
    AWS_ACCESS_KEY_ID: creds.accessKeyId,
    AWS_SECRET_ACCESS_KEY: creds.secretAccessKey,
    AWS_SESSION_TOKEN: creds.sessionToken,
    LOG_LEVEL: 'silent',
  });
  const { handler } = (await import('../../functions/resolve.ts')) as { handler: SqsHandler };
  const rt = await createRuntime({ aicrVersion: 'v0.11.1' });
  const item = encodeWorkItem({
    v: 1,
    step: 'resolve',
    runtime: { name: 'cluster', uid: rt.metadata.uid },
    cause: 'ADDED',
  });
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queue.url,
      MessageGroupId: runtimeGroup(rt.metadata.uid),
      MessageDeduplicationId: 'eks-1',
      MessageBody: item,
    }),
  );
  const driver = new SqsLambdaDriver(sqs, queue, handler);
  await driver.runUntil(
    'status written through the EKS-authenticated path',
    async () => condition(await getRuntime(), 'Resolved') !== undefined,
    20_000,
  );

  // The newest: the extra API server's audit log outlives a run of this file.
  const write = readAudit(server.auditLog)
    .filter((e) => e.objectRef?.subresource === 'status' && e.verb === 'patch')
    .at(-1);
  assert.ok(write, 'the status write went through the EKS-authenticated API server');
  assert.equal(write.user.username, 'arn:aws:sts::123456789012:assumed-role/aicr-control-plane-resolve/lambda-resolve');
  assert.ok((write.user as { groups?: string[] }).groups?.includes(RESOLVE_GROUP), JSON.stringify(write.user));
  assert.equal(write.responseStatus?.code, 200);
  assert.ok(webhook.reviews.some((r) => r.authenticated));
});

test('a request outside the control plane RBAC is denied, naming the IAM identity used', async () => {
  const kube = eksKube();
  const err = await kube
    .create(KIND.configMap, { metadata: { name: 'not-ours', namespace: 'default' }, data: {} })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  assert.ok(err instanceof KubeRequestError);
  assert.equal(err.status, 403);
  assert.match(err.message, /assumed-role\/aicr-control-plane-resolve\/lambda-resolve on cluster aicr-test/);
  const yes = await kubectl(
    'auth',
    'can-i',
    'patch',
    'clusterruntimes.operator.aicr.run',
    '--subresource=status',
    '--as=probe',
    `--as-group=${RESOLVE_GROUP}`,
  );
  assert.equal(yes.trim(), 'yes');
  const no = await kubectl(
    'auth',
    'can-i',
    'list',
    'secrets',
    '-n',
    'kube-system',
    '--as=probe',
    `--as-group=${RESOLVE_GROUP}`,
  ).catch((e: { stdout?: string }) => e.stdout ?? '');
  assert.equal(no.trim(), 'no');
});

test('an expired token is refreshed once, then fails with a clear error instead of retrying forever', async () => {
  const before = webhook.reviews.length;
  const stale = eksKube(() => Date.now() - 20 * 60_000);
  const err = await stale.get(KIND.clusterRuntime, 'cluster').then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof KubeRequestError);
  assert.equal(err.status, 401);
  assert.match(err.message, /aicr-control-plane-resolve\/lambda-resolve on cluster aicr-test: http 401/);
  const refused = webhook.reviews.slice(before);
  assert.equal(refused.length, 2, 'one try and one refresh, no more');
  assert.ok(refused.every((r) => !r.authenticated && r.error === 'token expired'));
});

test('a token that the server refuses is replaced by a fresh one and the call succeeds', async () => {
  let first = true;
  const clock = (): number => {
    const t = first ? Date.now() - 20 * 60_000 : Date.now();
    first = false;
    return t;
  };
  const rt = await eksKube(clock).get(KIND.clusterRuntime, 'cluster');
  assert.equal(rt?.metadata.name, 'cluster');
});

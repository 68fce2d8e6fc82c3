// Proves the test environment is made of real parts: the pinned kube-apiserver on a real
// etcd, RBAC, CRDs, the audit log, the real kubectl, and moto answering AWS APIs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, VersionApi, ApisApi } from '@kubernetes/client-node';
import { SQSClient, ListQueuesCommand, CreateQueueCommand } from '@aws-sdk/client-sqs';
import { ECRClient, GetAuthorizationTokenCommand } from '@aws-sdk/client-ecr';
import {
  adminKubeConfig,
  awsClientConfig,
  nobodyKubeConfig,
  resetMoto,
  testEnv,
  uniqueName,
} from '../../harness/env.ts';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';

const run = promisify(execFile);

test('the API server reports the pinned release and serves a 1.34-only API group', async () => {
  const kc = adminKubeConfig();
  const version = await kc.makeApiClient(VersionApi).getCode();
  assert.equal(version.gitVersion, testEnv().TESTENV_K8S_VERSION);
  assert.equal(version.minor, testEnv().TESTENV_K8S_VERSION.split('.')[1]);
  const groups = await kc.makeApiClient(ApisApi).getAPIVersions();
  const resource = groups.groups.find((g) => g.name === 'resource.k8s.io');
  assert.ok(resource, 'resource.k8s.io is served');
  assert.ok(
    resource.versions.some((v) => v.version === 'v1'),
    'resource.k8s.io/v1 (GA in 1.34) is served',
  );
});

test('an object written through the API is stored in etcd itself', async () => {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const ns = uniqueName('env-etcd');
  await core.createNamespace({ body: { metadata: { name: ns } } });
  const marker = uniqueName('value');
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'probe' }, data: { marker } },
  });
  const key = Buffer.from(`/registry/configmaps/${ns}/probe`).toString('base64');
  const res = await fetch(`${testEnv().TESTENV_ETCD_URL}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key }),
  });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { kvs?: { value: string }[] };
  const stored = Buffer.from(body.kvs?.[0]?.value ?? '', 'base64');
  assert.ok(stored.includes(marker), 'etcd holds the value written through the API');
  assert.ok(stored.subarray(0, 4).equals(Buffer.from('k8s\0')), 'stored as Kubernetes protobuf');
});

test('a CRD can be installed and its resources served', async () => {
  const kc = adminKubeConfig();
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const group = `${uniqueName('g')}.testenv.example`;
  await ext.createCustomResourceDefinition({
    body: {
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Cluster',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    },
  });
  const co = kc.makeApiClient(CustomObjectsApi);
  const body = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } };
  const created = await retry(() => co.createClusterCustomObject({ group, version: 'v1', plural: 'widgets', body }));
  assert.equal((created as { spec: { size: number } }).spec.size, 3);
  await ext.deleteCustomResourceDefinition({ name: `widgets.${group}` });
});

test('RBAC denies a user without rights', async () => {
  const core = nobodyKubeConfig().makeApiClient(CoreV1Api);
  await assert.rejects(core.listNamespace(), (err: { code?: number }) => err.code === 403);
});

test('kubectl reaches the API server through the generated kubeconfig', async () => {
  const { stdout } = await run('kubectl', ['--kubeconfig', testEnv().KUBECONFIG, 'get', '--raw', '/readyz']);
  assert.equal(stdout.trim(), 'ok');
  const { stdout: v } = await run('kubectl', ['version', '--client', '-o', 'json']);
  const client = JSON.parse(v) as { clientVersion: { minor: string } };
  const skew = Math.abs(Number(client.clientVersion.minor) - Number(testEnv().TESTENV_K8S_VERSION.split('.')[1]));
  assert.ok(skew <= 1, `kubectl minor ${client.clientVersion.minor} is within one minor of the server`);
});

test('the audit log records the requests a test makes', async () => {
  const mark = auditMark();
  const name = uniqueName('audit-probe');
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await assert.rejects(core.readNamespace({ name }), (err: { code?: number }) => err.code === 404);
  await settleAudit();
  const hit = auditSince(mark).find((e) => e.objectRef?.name === name);
  assert.ok(hit, 'the request appears in the audit log');
  assert.equal(hit.verb, 'get');
  assert.equal(hit.objectRef?.resource, 'namespaces');
  assert.equal(hit.user.username, 'aicr-test-admin');
  assert.equal(hit.responseStatus?.code, 404);
});

test('moto answers SQS ListQueues and ECR GetAuthorizationToken', async () => {
  await resetMoto();
  const sqs = new SQSClient(awsClientConfig());
  await sqs.send(new CreateQueueCommand({ QueueName: 'probe.fifo', Attributes: { FifoQueue: 'true' } }));
  const queues = await sqs.send(new ListQueuesCommand({}));
  assert.ok(queues.QueueUrls?.some((u) => u.endsWith('/probe.fifo')));
  const ecr = new ECRClient(awsClientConfig());
  const token = await ecr.send(new GetAuthorizationTokenCommand({}));
  const data = token.authorizationData?.[0];
  assert.ok(data?.authorizationToken);
  assert.match(Buffer.from(data.authorizationToken, 'base64').toString(), /^AWS:/);
  assert.match(data.proxyEndpoint ?? '', /^https:\/\/\d{12}\.dkr\.ecr\.us-east-1\.amazonaws\.com$/);
});

async function retry<T>(fn: () => Promise<T>, attempts = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// One deployment serving a fleet (ADR 0019): the deployment's own cluster and a further one,
// a second real API server over its own etcd prefix with the chart installed. The forwarder
// and resolve functions run as on AWS (SQS in moto); only the cluster connections come from a
// kubeconfig instead of EKS. The EKS lookup of a further cluster runs against moto.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sha256 } from '@aws-crypto/sha256-js';
import { KubeConfig } from '@kubernetes/client-node';
import { SQSClient } from '@aws-sdk/client-sqs';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Context } from 'aws-lambda';
import { parse, stringify } from 'yaml';
import { CHART, FORWARDER_CHECKPOINT } from '../../shared/api/constants.ts';
import type { WindowResult } from '../../shared/aws/forwarderWindow.ts';
import { sweepClusters } from '../../shared/aws/windowClusters.ts';
import { watchedBy } from '../../shared/forwarder/watched.ts';
import { ClusterDescribeError, describeEksCluster } from '../../shared/kube/eksDescribe.ts';
import { kubeFromKubeconfig } from '../../shared/kube/fromKubeconfig.ts';
import { createDispatcher } from '../../shared/steps/dispatch.ts';
import { runResolve } from '../../shared/steps/resolve/index.ts';
import { DEFAULT_TIMINGS } from '../../shared/timings.ts';
import { startExtraApiServer, type ExtraApiServer } from '../helpers/apiserver.ts';
import { CHART_DIR } from '../../infra/chartPaths.ts';
import { chartValueArgs, helm } from '../../harness/chart.ts';
import { clearForwarderCheckpoints, forwarderAndResolve } from '../helpers/awsFunctions.ts';
import { CONTROL_PLANE_USER, awsClientConfig, testEnv } from '../../harness/env.ts';
import { captureLogger } from '../../harness/logs.ts';
import { queueDepth, SqsLambdaDriver, type SqsHandler, type TestQueue } from '../../harness/sqsDriver.ts';
import { condition, createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl } from '../../harness/runtime.ts';

const FURTHER = 'fleet-b';
const sqs = new SQSClient(awsClientConfig());
const context = { getRemainingTimeInMillis: () => 60_000 } as Context;
let server: ExtraApiServer;
let further: KubeConfig;
let queue: TestQueue;
let forwarder: (event: unknown, context: Context) => Promise<WindowResult>;
let resolve: SqsHandler;

/** The test kubeconfig with the further cluster added as a context of the control plane's user. */
function fleetKubeconfig(url: string): string {
  const kc = parse(readFileSync(testEnv().KUBECONFIG, 'utf8')) as {
    clusters: { name: string; cluster: Record<string, string> }[];
    contexts: unknown[];
  };
  const own = kc.clusters[0]?.cluster ?? {};
  kc.clusters.push({ name: FURTHER, cluster: { ...own, server: url } });
  kc.contexts.push({ name: FURTHER, context: { cluster: FURTHER, user: CONTROL_PLANE_USER } });
  const file = join(testEnv().TESTENV_STATE, 'fleet.kubeconfig');
  writeFileSync(file, stringify(kc), { mode: 0o600 });
  return file;
}

async function inFurther(...args: string[]): Promise<string> {
  return await kubectl('--kubeconfig', server.kubeconfig, ...args);
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await clearForwarderCheckpoints();
  server = await startExtraApiServer('apiserver-fleet-b', ['--etcd-prefix=/fleet-b']);
  await inFurther('delete', 'clusterruntime', '--all', '--ignore-not-found').catch(() => '');
  // A fleet cluster runs Argo CD: its namespace and CRDs, copied from the test cluster.
  await inFurther('create', 'namespace', 'argocd').catch(() => '');
  const crds = JSON.parse(
    await kubectl('get', 'crd', 'applications.argoproj.io', 'appprojects.argoproj.io', '-o', 'json'),
  ) as { items: { metadata: Record<string, unknown> }[] };
  const bare = crds.items.map((c) => ({ ...c, metadata: { name: c.metadata['name'] }, status: undefined }));
  const file = join(testEnv().TESTENV_STATE, 'fleet-argocd-crds.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: bare }));
  await inFurther('apply', '--server-side', '-f', file);
  await helm(
    'upgrade',
    '--install',
    CHART.release,
    CHART_DIR,
    '-n',
    CHART.namespace,
    '--create-namespace',
    '--server-side=true',
    '--force-conflicts',
    '--wait',
    '--timeout',
    '2m',
    '--kubeconfig',
    server.kubeconfig,
    ...chartValueArgs(),
  );
  await clearForwarderCheckpoints(inFurther);
  further = new KubeConfig();
  further.loadFromFile(server.kubeconfig);
  ({ queue, forwarder, resolve } = await forwarderAndResolve(sqs, {
    AICR_KUBECONFIG: fleetKubeconfig(server.url),
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    AICR_FLEET_CLUSTERS: FURTHER,
    AICR_FORWARDER_WINDOW_SECONDS: '3',
    AICR_FORWARDER_QUIET_SECONDS: '3',
  }));
});
after(async () => {
  await server.stop();
  await deleteRuntime();
  await clearForwarderCheckpoints();
});

async function resolvedBoth(driver: SqsLambdaDriver, generation: { own: number; further: number }): Promise<void> {
  const seen = async (kc?: KubeConfig, gen = 1): Promise<boolean> => {
    const rt = await getRuntime(kc);
    return rt?.status?.observedGeneration === gen && condition(rt, 'Reconciling') !== undefined;
  };
  await driver.runUntil(
    'status in both clusters',
    async () => (await seen(undefined, generation.own)) && (await seen(further, generation.further)),
    30_000,
  );
  // Settled: whatever else was queued has run.
  await driver.runUntil('an empty resolve queue', async () => (await queueDepth(sqs, queue)) === 0, 30_000);
}

test("one forwarder window watches every cluster of the fleet, and resolve writes each runtime's status in its own cluster", async () => {
  // Same name in both clusters: only the UID and the cluster tell them apart.
  await createRuntime({ aicrVersion: 'v1.1.0' });
  await createRuntime({ aicrVersion: 'v1.1.0' }, further);
  const first = await forwarder({}, context);
  assert.equal(first.relists, 2 * watchedBy().length, 'each watched kind lists once in each cluster');
  const driver = new SqsLambdaDriver(sqs, queue, resolve);
  await resolvedBoth(driver, { own: 1, further: 1 });
  const bodies = driver.deliveries.map((d) => JSON.parse(d.body) as { cluster?: string; runtime: { uid: string } });
  const furtherUid = (await getRuntime(further))?.metadata.uid;
  assert.ok(
    bodies.some((b) => b.cluster === FURTHER && b.runtime.uid === furtherUid),
    "the further cluster's runtime was woken by a message naming its cluster",
  );
  assert.ok(
    bodies.every((b) => (b.cluster === FURTHER) === (b.runtime.uid === furtherUid)),
    'only messages for the further cluster name it',
  );
  assert.ok(
    Number(
      await inFurther(
        'get',
        'configmap',
        '-n',
        FORWARDER_CHECKPOINT.namespace,
        FORWARDER_CHECKPOINT.name,
        '-o',
        `jsonpath={.data.${FORWARDER_CHECKPOINT.key}}`,
      ),
    ) > 0,
    'the further cluster keeps its own checkpoint',
  );
});

test('a change in the further cluster reaches only its runtime', async () => {
  const own = await getRuntime();
  await inFurther('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":true}}');
  const window = await forwarder({}, context);
  assert.equal(window.relists, 0, 'both clusters resumed from their checkpoints');
  const driver = new SqsLambdaDriver(sqs, queue, resolve);
  await resolvedBoth(driver, { own: 1, further: 2 });
  const ownAfter = await getRuntime();
  assert.equal(ownAfter?.metadata.generation, own?.metadata.generation);
  assert.deepEqual(ownAfter?.status, own?.status, "the own cluster's runtime status was not written");
});

test("work for a further cluster's runtime writes its status there and its log lines carry the cluster", async () => {
  await inFurther('patch', 'clusterruntime', 'cluster', '--type', 'merge', '-p', '{"spec":{"paused":false}}');
  const rt = await getRuntime(further);
  const { log, records } = captureLogger('info');
  const dispatch = createDispatcher({ resolve: runResolve });
  const body = JSON.stringify({
    v: 1,
    step: 'resolve',
    runtime: { name: 'cluster', uid: rt?.metadata.uid },
    cause: 'test',
    cluster: FURTHER,
  });
  const own = kubeFromKubeconfig(testEnv().KUBECONFIG, CONTROL_PLANE_USER);
  const far = kubeFromKubeconfig(process.env['AICR_KUBECONFIG'] ?? '', FURTHER);
  const producer = { send: () => Promise.resolve({ deduplicated: false }), deadLetter: () => Promise.resolve() };
  await dispatch(
    { id: 'm2', group: `runtime-${rt?.metadata.uid}`, dedupId: 'd2', body, receiveCount: 1, sentAt: Date.now() },
    {
      kube: own,
      log,
      producer,
      now: () => new Date(),
      timings: DEFAULT_TIMINGS,
      clusterKube: (name) => Promise.resolve(name === FURTHER ? far : undefined),
    },
  );
  assert.equal(
    (await getRuntime(further))?.status?.observedGeneration,
    rt?.metadata.generation,
    'the status was written in the further cluster',
  );
  assert.ok(
    records()
      .filter((r) => r['message'] === 'status written')
      .every((r) => r['cluster'] === FURTHER),
  );
});

test('work for a cluster the deployment does not serve is dropped, naming the cluster', async () => {
  const { log, records } = captureLogger('info');
  const dispatch = createDispatcher({ resolve: () => Promise.reject(new Error('must not run')) });
  const body = JSON.stringify({
    v: 1,
    step: 'resolve',
    runtime: { name: 'cluster', uid: '00000000-0000-0000-0000-000000000001' },
    cause: 'test',
    cluster: 'left-the-fleet',
  });
  const kube = kubeFromKubeconfig(testEnv().KUBECONFIG, CONTROL_PLANE_USER);
  const producer = {
    send: () => Promise.reject(new Error('nothing is sent')),
    deadLetter: () => Promise.reject(new Error('nothing is dead-lettered')),
  };
  const result = await dispatch(
    { id: 'm1', group: 'runtime-x', dedupId: 'd1', body, receiveCount: 1, sentAt: Date.now() },
    {
      kube,
      log,
      producer,
      now: () => new Date(),
      timings: DEFAULT_TIMINGS,
      clusterKube: () => Promise.resolve(undefined),
    },
  );
  assert.equal(result, undefined);
  assert.ok(
    records().some(
      (r) =>
        r['level'] === 'ERROR' && r['cluster'] === 'left-the-fleet' && String(r['message']).includes('does not serve'),
    ),
    'an error line names the cluster',
  );
});

test('the sweeper keeps timers of runtimes in every cluster, and sweeps none while a cluster cannot be read', async () => {
  const own = kubeFromKubeconfig(testEnv().KUBECONFIG, CONTROL_PLANE_USER);
  const far = kubeFromKubeconfig(process.env['AICR_KUBECONFIG'] ?? '', FURTHER);
  const asked: ReadonlySet<string>[] = [];
  const timers = {
    sweep: (live: ReadonlySet<string>) => {
      asked.push(live);
      return Promise.resolve([]);
    },
  };
  const settings = { staleAfterMs: DEFAULT_TIMINGS.sweepStaleAfterMs, graceMs: 0 };
  const { log } = captureLogger('info');
  await sweepClusters({ log, settings, timers }, [{ kube: own }, { cluster: FURTHER, kube: far }], true);
  const uids = [(await getRuntime())?.metadata.uid, (await getRuntime(further))?.metadata.uid];
  assert.deepEqual([...(asked[0] ?? [])].sort(), uids.sort(), 'the live runtimes are those of both clusters');
  await sweepClusters({ log, settings, timers }, [{ kube: own }], false);
  assert.equal(asked.length, 1, 'with a cluster unread, no timer is swept');
});

test('a further EKS cluster is found with eks:DescribeCluster, and a missing one is named', async () => {
  const env = testEnv();
  const aws = awsClientConfig();
  const credentials = () => Promise.resolve(aws.credentials);
  const url = new URL('/clusters', env.AWS_ENDPOINT_URL);
  const body = JSON.stringify({
    name: 'fleet-eks',
    roleArn: 'arn:aws:iam::123456789012:role/eks',
    resourcesVpcConfig: { subnetIds: ['subnet-1'] },
  });
  const signer = new SignatureV4({ service: 'eks', region: aws.region, credentials: aws.credentials, sha256: Sha256 });
  const signed = await signer.sign(
    new HttpRequest({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { host: url.host, 'content-type': 'application/json' },
      body,
    }),
  );
  assert.equal((await fetch(url, { method: 'POST', headers: signed.headers, body })).status, 200);
  const info = await describeEksCluster('fleet-eks', { region: aws.region, credentials, apiUrl: env.AWS_ENDPOINT_URL });
  assert.match(info.endpoint, /^https:\/\//);
  assert.ok(info.caData.length > 100);
  await assert.rejects(
    describeEksCluster('not-there', { region: aws.region, credentials, apiUrl: env.AWS_ENDPOINT_URL }),
    (err: unknown) => err instanceof ClusterDescribeError && /cluster not-there: no such EKS cluster/.test(err.message),
  );
});

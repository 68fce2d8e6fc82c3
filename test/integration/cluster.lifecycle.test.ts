// The rest of a run's life in the test cluster: the TTL controller and garbage collector
// clean up after a finished Job, RBAC applies to what a Pod does with its ServiceAccount
// token, and the Nodes look like an EKS cluster's (GPU capacity, labels, OS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { ApiextensionsV1Api, type V1Job, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { batch, core, jobPods, oneShotJob, readOrUndefined, serviceAccountWith, waitFor } from '../helpers/cluster.ts';
import { adminKubeConfig, uniqueName } from '../../harness/env.ts';
import { auditMark, auditSince, settleAudit } from '../../harness/audit.ts';

const SHELL = 'testenv.aicr.local/shell:1';

test('ttlSecondsAfterFinished deletes a finished Job and its Pod', async () => {
  const ns = uniqueName('ttl');
  await serviceAccountWith(ns, 'default', []);
  const name = 'short';
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(
      name,
      { containers: [{ name: 'main', image: SHELL, command: ['true'] }] },
      { ttlSecondsAfterFinished: 1 },
    ),
  });
  // The Pod is read as soon as the Job controller makes it: a second after the Job completes the
  // TTL controller may already have taken both.
  let pod: Awaited<ReturnType<typeof jobPods>>[number] | undefined;
  for (const deadline = Date.now() + 30_000; !pod && Date.now() < deadline;) {
    [pod] = await jobPods(ns, name);
    if (!pod) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(pod?.metadata?.name, 'the Job had a Pod');
  // The TTL controller deletes only a finished Job: its deletion says the run ended.
  await waitFor<V1Job>({
    path: `/apis/batch/v1/namespaces/${ns}/jobs`,
    name,
    what: 'the TTL controller to delete the Job',
    read: () => readOrUndefined(() => batch().readNamespacedJob({ name, namespace: ns })),
    until: (job) => job === undefined,
  });
  const podName = pod.metadata.name;
  await waitFor<V1Pod>({
    path: `/api/v1/namespaces/${ns}/pods`,
    name: podName,
    what: 'the garbage collector to delete the Pod',
    read: () => readOrUndefined(() => core().readNamespacedPod({ name: podName, namespace: ns })),
    until: (p) => p === undefined,
  });
});

test('a Pod whose ServiceAccount lacks a right is refused with 403 by the API server', async () => {
  const ns = uniqueName('rbac');
  await serviceAccountWith(ns, 'reader', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }]);
  const mark = auditMark();
  const name = 'nosy';
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        serviceAccountName: 'reader',
        containers: [
          {
            name: 'main',
            image: SHELL,
            command: ['/bin/sh', '-c', 'kubectl get configmaps -o name >/dev/null && kubectl get secrets'],
            terminationMessagePolicy: 'FallbackToLogsOnError',
          },
        ],
      },
    },
  });
  const pod = await finishedPod(ns, name);
  const terminated = pod?.status?.containerStatuses?.[0]?.state?.terminated;
  assert.equal(terminated?.exitCode, 1);
  assert.match(
    terminated?.message ?? '',
    /secrets is forbidden: User "system:serviceaccount:[^:]+:reader" cannot list resource "secrets"/,
  );
  await settleAudit();
  const user = `system:serviceaccount:${ns}:reader`;
  const mine = auditSince(mark).filter((e) => e.user.username === user && e.stage === 'ResponseComplete');
  assert.ok(
    mine.some((e) => e.objectRef?.resource === 'configmaps' && e.responseStatus?.code === 200),
    'the granted list succeeded as the ServiceAccount',
  );
  assert.ok(
    mine.some((e) => e.objectRef?.resource === 'secrets' && e.responseStatus?.code === 403),
    'the API server answered 403 to the ServiceAccount',
  );
});

async function finishedPod(ns: string, name: string): Promise<V1Pod | undefined> {
  return waitFor<V1Pod>({
    path: `/api/v1/namespaces/${ns}/pods`,
    name,
    what: 'the Pod to finish',
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: ns })),
    until: (p) => p?.status?.phase === 'Failed' || p?.status?.phase === 'Succeeded',
  });
}

const capacity = (n: V1Node): Record<string, string> => n.status?.capacity ?? {};
const group = (n: V1Node, name: string): boolean => n.metadata?.labels?.['eks.amazonaws.com/nodegroup'] === name;

test('the default Nodes look like an EKS system group and an H100 × 8 GPU group', async () => {
  const nodes = (await core().listNode({ labelSelector: 'testenv.aicr.local/process-node=true' })).items;
  const gpu = nodes.find((n) => group(n, 'gpu-h100'));
  const system = nodes.find((n) => group(n, 'system'));
  assert.ok(gpu && system, 'both groups have a Node');
  const labels = gpu.metadata?.labels ?? {};
  assert.equal(labels['nvidia.com/gpu.product'], 'NVIDIA-H100-80GB-HBM3');
  assert.equal(labels['node.kubernetes.io/instance-type'], 'p5.48xlarge');
  assert.equal(capacity(gpu)['nvidia.com/gpu'], '8');
  assert.equal(capacity(system)['nvidia.com/gpu'], undefined);
  const status = gpu.status ?? {};
  assert.deepEqual(
    (status.addresses ?? []).map((a) => ({ type: a.type, address: a.address })),
    [{ type: 'InternalIP', address: '127.0.0.1' }],
  );
  assert.deepEqual(
    (gpu.spec?.taints ?? []).map((t) => t.key),
    [],
    'no not-ready taint is left',
  );
});

test("a Pod on a GPU Node reads the Node's os-release, and its mount points never reach the machine", async () => {
  const ns = uniqueName('osrel');
  await serviceAccountWith(ns, 'default', []);
  const name = 'os';
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        nodeSelector: { 'nvidia.com/gpu.present': 'true' },
        volumes: [{ name: 'os', hostPath: { path: '/etc/os-release', type: 'File' } }],
        containers: [
          {
            name: 'main',
            image: SHELL,
            command: ['/bin/sh', '-c', 'cat /host/etc/os-release > /dev/termination-log'],
            volumeMounts: [{ name: 'os', mountPath: '/host/etc/os-release' }],
          },
        ],
      },
    },
  });
  const pod = await finishedPod(ns, name);
  assert.ok(pod?.spec && pod.status);
  assert.equal(pod.status.phase, 'Succeeded');
  assert.match(pod.spec.nodeName ?? '', /^gpu-h100-/);
  const [container] = pod.status.containerStatuses ?? [];
  assert.match(container?.state?.terminated?.message ?? '', /^VERSION_ID="24\.04"$/m);
  assert.equal(existsSync('/host'), false, 'the mount point was made inside the container only');
  assert.equal(existsSync('/dev/termination-log'), false, 'the termination log was made inside the container only');
});

test("Argo CD's Application and AppProject CRDs are installed and established", async () => {
  const ext = adminKubeConfig().makeApiClient(ApiextensionsV1Api);
  for (const name of ['applications.argoproj.io', 'appprojects.argoproj.io']) {
    const crd = await ext.readCustomResourceDefinition({ name });
    assert.equal(crd.status?.conditions?.find((c) => c.type === 'Established')?.status, 'True', name);
  }
});

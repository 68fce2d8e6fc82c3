// What the process node does as a kubelet beyond running to completion: it honours
// activeDeadlineSeconds, deletes gracefully, and serves Nodes a test adds (with taints the
// real scheduler respects).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { V1Pod } from '@kubernetes/client-node';
import { addNodeGroup, core, readOrUndefined, serviceAccountWith, waitFor } from '../helpers/cluster.ts';
import { uniqueName } from '../../harness/env.ts';
import { kubectl } from '../../harness/runtime.ts';

const PAUSE = 'testenv.aicr.local/pause:1';

function waitForPod(
  ns: string,
  name: string,
  what: string,
  until: (p: V1Pod | undefined) => boolean,
): Promise<V1Pod | undefined> {
  return waitFor<V1Pod>({
    path: `/api/v1/namespaces/${ns}/pods`,
    name,
    what,
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: ns })),
    until,
  });
}

const phase = (p: V1Pod | undefined): string | undefined => p?.status?.phase;

test('a Pod past its activeDeadlineSeconds is stopped and fails with DeadlineExceeded', async () => {
  const ns = uniqueName('deadline');
  await serviceAccountWith(ns, 'default', []);
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: 'slow' },
      spec: { restartPolicy: 'Never', activeDeadlineSeconds: 1, containers: [{ name: 'main', image: PAUSE }] },
    },
  });
  const pod = await waitForPod(ns, 'slow', 'the deadline to end the Pod', (p) => phase(p) === 'Failed');
  assert.equal(pod?.status?.reason, 'DeadlineExceeded');
  assert.equal(pod?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode, 137);
});

test('deleting a running Pod stops its process and the node releases the Pod', async () => {
  const ns = uniqueName('delete');
  await serviceAccountWith(ns, 'default', []);
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: 'busy' },
      spec: { restartPolicy: 'Always', containers: [{ name: 'main', image: PAUSE }] },
    },
  });
  const running = await waitForPod(ns, 'busy', 'the Pod to run', (p) => phase(p) === 'Running');
  const pid = Number((running?.status?.containerStatuses?.[0]?.containerID ?? '').replace('process://', ''));
  assert.ok(pid > 0, 'the container reports its process');
  assert.equal(running?.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  await core().deleteNamespacedPod({ name: 'busy', namespace: ns, gracePeriodSeconds: 5 });
  await waitForPod(ns, 'busy', 'the node to release the Pod', (p) => p === undefined);
  assert.throws(() => process.kill(pid, 0), 'the process is gone');
});

test('a node group a test adds takes only Pods that tolerate its taint, and runs them', async () => {
  const suffix = uniqueName('g');
  const taint = { key: 'dedicated', value: suffix, effect: 'NoSchedule' };
  const group = await addNodeGroup({
    name: suffix,
    instanceType: 'g6e.xlarge',
    count: 1,
    cpu: '4',
    memory: '32Gi',
    gpu: { product: 'NVIDIA-L40S', count: 1 },
    taints: [taint],
    labels: { 'testenv.aicr.local/group': suffix },
  });
  try {
    const ns = uniqueName('taint');
    await serviceAccountWith(ns, 'default', []);
    const spec = {
      restartPolicy: 'Never',
      nodeSelector: { 'testenv.aicr.local/group': suffix },
      containers: [{ name: 'main', image: 'testenv.aicr.local/shell:1', command: ['true'] }],
    };
    await core().createNamespacedPod({ namespace: ns, body: { metadata: { name: 'plain' }, spec } });
    await core().createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'tolerant' },
        spec: { ...spec, tolerations: [{ key: 'dedicated', operator: 'Equal', value: suffix, effect: 'NoSchedule' }] },
      },
    });
    const plain = await waitForPod(
      ns,
      'plain',
      'the scheduler to refuse',
      (p) => p?.status?.conditions?.some((c) => c.reason === 'Unschedulable') === true,
    );
    assert.match(
      plain?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message ?? '',
      /1 node\(s\) had untolerated taint/,
    );
    const tolerant = await waitForPod(
      ns,
      'tolerant',
      'the Pod to finish on the new Node',
      (p) => phase(p) === 'Succeeded',
    );
    assert.deepEqual([tolerant?.spec?.nodeName], group.names);
  } finally {
    await group.remove();
  }
});

test('a container sees its volumes at their mount paths, its env and its expanded args', async () => {
  const ns = uniqueName('vols');
  await serviceAccountWith(ns, 'default', []);
  await core().createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'settings' }, data: { 'mode.txt': 'fast', LEVEL: '3' } },
  });
  await core().createNamespacedSecret({
    namespace: ns,
    body: { metadata: { name: 'creds' }, stringData: { token: 's3cret' } },
  });
  const script = [
    'echo "$(cat /etc/settings/mode.txt)"',
    'echo "$(cat /var/lib/creds/token)"',
    'echo written > /scratch/file && cat /scratch/file',
    'echo "$(cat /etc/podinfo/name)"',
    'echo "$LEVEL $SECRET_TOKEN $MY_NAMESPACE $1"',
  ].join('; ');
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: 'reader' },
      spec: {
        restartPolicy: 'Never',
        volumes: [
          { name: 'settings', configMap: { name: 'settings', items: [{ key: 'mode.txt', path: 'mode.txt' }] } },
          { name: 'creds', secret: { secretName: 'creds' } },
          { name: 'scratch', emptyDir: {} },
          { name: 'podinfo', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
        ],
        containers: [
          {
            name: 'main',
            image: 'testenv.aicr.local/shell:1',
            command: ['/bin/sh', '-c', `(${script}) > /dev/termination-log`, 'sh'],
            args: ['arg-$(LEVEL)'],
            envFrom: [{ configMapRef: { name: 'settings' } }],
            env: [
              { name: 'SECRET_TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
              { name: 'MY_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            ],
            volumeMounts: [
              { name: 'settings', mountPath: '/etc/settings', readOnly: true },
              { name: 'creds', mountPath: '/var/lib/creds', readOnly: true },
              { name: 'scratch', mountPath: '/scratch' },
              { name: 'podinfo', mountPath: '/etc/podinfo' },
            ],
          },
        ],
      },
    },
  });
  const pod = await waitForPod(
    ns,
    'reader',
    'the Pod to finish',
    (p) => phase(p) === 'Succeeded' || phase(p) === 'Failed',
  );
  const message = pod?.status?.containerStatuses?.[0]?.state?.terminated?.message ?? '';
  assert.equal(message, `fast\ns3cret\nwritten\nreader\n3 s3cret ${ns} arg-3\n`);
  assert.equal(phase(pod), 'Succeeded');
  for (const path of ['/etc/settings', '/var/lib/creds', '/scratch', '/etc/podinfo'])
    assert.equal(existsSync(path), false, `${path} exists only inside the container`);
});

test('kubectl logs -f follows a running container through the API server until it ends', async () => {
  const ns = uniqueName('follow');
  await serviceAccountWith(ns, 'default', []);
  const command = ['/bin/sh', '-c', 'echo first; sleep 1; echo second'];
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name: 'talker' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'testenv.aicr.local/shell:1', command }] },
    },
  });
  await waitForPod(ns, 'talker', 'the Pod to run', (p) => phase(p) === 'Running' || phase(p) === 'Succeeded');
  assert.equal(await kubectl('logs', '-f', '-n', ns, 'talker'), 'first\nsecond\n');
});

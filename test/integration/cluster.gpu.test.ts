// Simulated GPUs: on a GPU Node the process node puts a stand-in nvidia-smi on the Pod's PATH
// that prints the Node's GPU facts (from its labels and capacity) and says it is simulated.
// The real AICR CLI, run in agent mode as its snapshot agent Job runs it, parses that output
// with its own GPU collector and reports the test API server's version from its own client.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { VersionApi, type V1Pod } from '@kubernetes/client-node';
import { NAMESPACES } from '../../shared/api/constants.ts';
import {
  addNodeGroup,
  batch,
  core,
  jobPods,
  jobReaches,
  oneShotJob,
  readOrUndefined,
  serviceAccountWith,
  waitFor,
} from '../helpers/cluster.ts';
import { adminKubeConfig, uniqueName } from '../../harness/env.ts';
import { ensureCrds, kubectl } from '../../harness/runtime.ts';

const NAMESPACE = NAMESPACES.jobs;
const GPU_NODE = { 'nvidia.com/gpu.present': 'true' };
const CUDA = 'nvcr.io/nvidia/cuda:13.0.0-base-ubuntu22.04';
const SHELL = 'testenv.aicr.local/shell:1';

function waitForPod(ns: string, name: string, until: (p: V1Pod | undefined) => boolean): Promise<V1Pod | undefined> {
  return waitFor<V1Pod>({
    path: `/api/v1/namespaces/${ns}/pods`,
    name,
    what: `pod ${name} to finish`,
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: ns })),
    until,
  });
}

const finished = (p: V1Pod | undefined): boolean => p?.status?.phase === 'Succeeded' || p?.status?.phase === 'Failed';

interface Measurement {
  readonly type: string;
  readonly subtypes: readonly { readonly subtype: string; readonly data: Readonly<Record<string, unknown>> }[];
}

function subtype(measurements: readonly Measurement[], type: string, name: string): Readonly<Record<string, unknown>> {
  const found = measurements.find((m) => m.type === type)?.subtypes.find((s) => s.subtype === name);
  assert.ok(found, `the snapshot has ${type}/${name} (types: ${measurements.map((m) => m.type).join(', ')})`);
  return found.data;
}

// The Job namespace is the chart's: installed before a test makes its ServiceAccount there.
before(async () => {
  await ensureCrds();
});

test("a Pod on a GPU Node finds a simulated nvidia-smi that prints the Node's GPUs; a CPU Node has none", async () => {
  const ns = uniqueName('smi');
  await serviceAccountWith(ns, 'default', []);
  const run = (name: string, image: string, script: string, nodeSelector?: Record<string, string>): Promise<unknown> =>
    core().createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          ...(nodeSelector ? { nodeSelector } : {}),
          containers: [{ name: 'main', image, command: ['/bin/sh', '-c', script] }],
        },
      },
    });
  await run(
    'gpu',
    CUDA,
    'nvidia-smi && nvidia-smi -L && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader',
    GPU_NODE,
  );
  await run('cpu', SHELL, 'command -v nvidia-smi || echo none', { 'eks.amazonaws.com/nodegroup': 'system' });
  const gpu = await waitForPod(ns, 'gpu', finished);
  assert.equal(gpu?.status?.phase, 'Succeeded');
  const out = await kubectl('logs', '-n', ns, 'gpu');
  assert.match(out, /NVIDIA-SMI 580\.95\.05 +Driver Version: 580\.95\.05 +CUDA Version: 13\.0/);
  assert.match(out, /SIMULATED by the test environment's process node/);
  assert.equal(out.match(/^GPU \d: NVIDIA H100 80GB HBM3 \(UUID: GPU-[0-9a-f-]+\) \[simulated\]$/gm)?.length, 8);
  assert.equal(out.match(/^NVIDIA H100 80GB HBM3, 81559 MiB$/gm)?.length, 8);
  const cpu = await waitForPod(ns, 'cpu', finished);
  assert.equal(cpu?.status?.phase, 'Succeeded');
  assert.equal(await kubectl('logs', '-n', ns, 'cpu'), 'none\n');
});

test('the GPUs a Node is given are the ones its simulated nvidia-smi reports', async () => {
  const suffix = uniqueName('l40s');
  const group = await addNodeGroup({
    name: suffix,
    instanceType: 'g6e.12xlarge',
    count: 1,
    cpu: '48',
    memory: '384Gi',
    gpu: { product: 'NVIDIA-L40S', count: 4, memoryMiB: 46068, driverVersion: '570.172.08', cudaVersion: '12.8' },
    labels: { 'testenv.aicr.local/group': suffix },
  });
  try {
    const ns = uniqueName('smi');
    await serviceAccountWith(ns, 'default', []);
    await core().createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'q' },
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { 'testenv.aicr.local/group': suffix },
          containers: [{ name: 'main', image: CUDA, command: ['nvidia-smi', '-q', '-x'] }],
        },
      },
    });
    assert.equal((await waitForPod(ns, 'q', finished))?.status?.phase, 'Succeeded');
    const xml = await kubectl('logs', '-n', ns, 'q');
    assert.match(
      xml,
      /<driver_version>570\.172\.08<\/driver_version>\s*<cuda_version>12\.8<\/cuda_version>\s*<attached_gpus>4<\/attached_gpus>/,
    );
    assert.equal(xml.match(/<product_name>NVIDIA L40S<\/product_name>/g)?.length, 4);
    assert.match(xml, /<product_architecture>Ada Lovelace<\/product_architecture>/);
  } finally {
    await group.remove();
  }
});

test('aicr snapshot in agent mode on a GPU Node reports the simulated GPU and the API server version', async () => {
  await serviceAccountWith(NAMESPACE, 'aicr-snapshot', [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'patch'] },
  ]);
  const name = uniqueName('snapshot');
  await batch().createNamespacedJob({
    namespace: NAMESPACE,
    body: oneShotJob(name, {
      serviceAccountName: 'aicr-snapshot',
      nodeSelector: GPU_NODE,
      containers: [
        {
          name: 'aicr',
          image: 'ghcr.io/nvidia/aicr:v0.11.1',
          args: ['snapshot', '-o', `cm://${NAMESPACE}/${name}`],
          // What AICR's own agent Job sets.
          env: [
            { name: 'AICR_AGENT_MODE', value: 'true' },
            { name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          ],
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    }),
  });
  const job = await jobReaches(NAMESPACE, name, 'Complete', 120_000);
  assert.equal(job?.status?.succeeded, 1);
  const [pod] = await jobPods(NAMESPACE, name);

  const data = (await core().readNamespacedConfigMap({ name, namespace: NAMESPACE })).data ?? {};
  const key = Object.keys(data).find((k) => k.startsWith('snapshot.'));
  assert.ok(key, `the ConfigMap holds the snapshot (keys: ${Object.keys(data).join(', ')})`);
  const snap = parse(data[key] ?? '') as {
    kind?: string;
    metadata?: Record<string, unknown>;
    measurements?: Measurement[];
  };
  assert.equal(snap.kind, 'Snapshot');
  assert.equal(snap.metadata?.['source-node'], pod?.spec?.nodeName);
  const measurements = snap.measurements ?? [];

  const smi = subtype(measurements, 'GPU', 'smi');
  assert.equal(smi['gpu.model'], 'NVIDIA H100 80GB HBM3');
  assert.equal(smi['gpu-count'], 8);
  assert.equal(smi['driver'], '580.95.05');
  assert.equal(smi['cuda-version'], '13.0');
  assert.equal(smi['gpu.product-architecture'], 'Hopper');
  assert.equal(smi['gpu.vbios-version'], 'simulated');

  const { gitVersion } = await adminKubeConfig().makeApiClient(VersionApi).getCode();
  assert.equal(subtype(measurements, 'K8s', 'server')['version'], gitVersion);
});

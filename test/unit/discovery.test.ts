// Node groups and snapshots read without a cluster: what makes a new snapshot, what is a
// mismatch, and which snapshot documents resolution refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSnapshot } from '../../shared/aicr/snapshotStage.ts';
import { type NodeFacts, nodeGroupFingerprint, readNodeGroups } from '../../shared/discovery/nodeGroups.ts';

function gpuNode(
  name: string,
  group: string,
  opts: { count?: number; label?: string; product?: string } = {},
): NodeFacts {
  const count = opts.count ?? 8;
  return {
    metadata: {
      name,
      labels: {
        'eks.amazonaws.com/nodegroup': group,
        'node.kubernetes.io/instance-type': 'p5.48xlarge',
        'nvidia.com/gpu.present': 'true',
        ...(opts.product === '' ? {} : { 'nvidia.com/gpu.product': opts.product ?? 'NVIDIA-H100-80GB-HBM3' }),
        'nvidia.com/gpu.count': opts.label ?? String(count),
      },
    },
    spec: { taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }] },
    status: { capacity: { 'nvidia.com/gpu': String(count) } },
  };
}
const cpuNode = (name: string): NodeFacts => ({
  metadata: { name, labels: { 'eks.amazonaws.com/nodegroup': 'system' } },
  status: { capacity: { cpu: '8' } },
});

test('DISC-1 node groups: GPU groups first with product, count and taints; a Node added to a group is not a new fingerprint', () => {
  const one = readNodeGroups([cpuNode('s-0'), gpuNode('g-0', 'gpu')]);
  assert.deepEqual(one.problems, []);
  assert.deepEqual(one.groups[0], {
    name: 'gpu',
    instanceType: 'p5.48xlarge',
    gpu: { product: 'NVIDIA-H100-80GB-HBM3', count: 8 },
    taints: ['nvidia.com/gpu=true:NoSchedule'],
    nodes: 1,
  });
  assert.equal(one.groups[1]?.name, 'system');
  const two = readNodeGroups([cpuNode('s-0'), gpuNode('g-0', 'gpu'), gpuNode('g-1', 'gpu')]);
  assert.equal(two.groups[0]?.nodes, 2);
  assert.equal(nodeGroupFingerprint(two.groups), nodeGroupFingerprint(one.groups));
  const unready = gpuNode('g-2', 'gpu');
  const withHealthTaint = {
    ...unready,
    spec: { taints: [...(unready.spec?.taints ?? []), { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] },
  };
  assert.equal(
    nodeGroupFingerprint(readNodeGroups([cpuNode('s-0'), withHealthTaint]).groups),
    nodeGroupFingerprint(one.groups),
    "a Node's health taints are not its group's",
  );
  const other = readNodeGroups([cpuNode('s-0'), gpuNode('g-0', 'gpu', { product: 'NVIDIA-L40S', count: 4 })]);
  assert.notEqual(
    nodeGroupFingerprint(other.groups),
    nodeGroupFingerprint(one.groups),
    'a group changing GPU type is a new snapshot',
  );
});

test('DISC-1 a GPU Node whose labels disagree with its capacity is named with the fix', () => {
  const r = readNodeGroups([gpuNode('g-0', 'gpu', { label: '4' })]);
  assert.match(
    r.problems[0] ?? '',
    /Node g-0 \(node group gpu\) is labelled nvidia.com\/gpu.count=4 but its capacity has 8 nvidia.com\/gpu; check its device plugin/,
  );
  const unlabelled = readNodeGroups([gpuNode('g-0', 'gpu', { product: '' })]);
  assert.match(unlabelled.problems[0] ?? '', /no nvidia.com\/gpu.product label/);
  assert.equal(
    readNodeGroups([cpuNode('s-0')]).groups.some((g) => g.gpu),
    false,
  );
});

test('DISC-2 a snapshot that is missing, not YAML, not a Snapshot or of another schema is refused, naming the ConfigMap', () => {
  const where = 'aicr-system/aicr-snapshot-x';
  const refuse = (text: string | undefined): string => {
    const r = parseSnapshot(where, 'aicr-snapshot-x', text);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.problem;
  };
  assert.match(refuse(undefined), /aicr-system\/aicr-snapshot-x has no snapshot.yaml/);
  assert.match(refuse('kind: [oops'), /is not YAML/);
  assert.match(refuse('kind: RecipeResult\napiVersion: x\nmeasurements: [{type: K8s}]\n'), /is not an AICR Snapshot/);
  assert.match(
    refuse('kind: Snapshot\napiVersion: aicr.run/v1\nmeasurements: [{type: K8s}]\n'),
    /schema aicr.run\/v1, which this control plane cannot read/,
  );
  const ok = parseSnapshot(
    where,
    'aicr-snapshot-x',
    'kind: Snapshot\napiVersion: aicr.nvidia.com/v1alpha1\nmeasurements:\n- type: K8s\n  subtypes:\n  - subtype: server\n    data: {version: v1.33.1}\n',
  );
  assert.equal(ok.ok && ok.output.serverVersion, 'v1.33.1');
});

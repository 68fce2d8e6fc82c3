// Node objects shaped like the Nodes of an EKS managed node group: the labels EKS and the
// NVIDIA GPU feature discovery put on them, capacity (with nvidia.com/gpu), taints and an OS.
// They are a stand-in: no machine stands behind them; the process node runs their Pods.
import type { V1Node, V1NodeStatus, V1Taint } from '@kubernetes/client-node';

/** Marks the Nodes the process node serves; nothing else in the cluster carries it. */
export const PROCESS_NODE_LABEL = 'testenv.aicr.local/process-node';
/** The content of /etc/os-release that Pods mounting it from the host see. */
export const OS_RELEASE_ANNOTATION = 'testenv.aicr.local/os-release';

export interface GpuShape {
  readonly product: string;
  readonly count: number;
  readonly memoryMiB?: number;
  /** The driver the Node reports (feature discovery's label); a recent data-centre driver by default. */
  readonly driverVersion?: string;
  /** The CUDA version that driver supports. */
  readonly cudaVersion?: string;
}

export const DEFAULT_DRIVER_VERSION = '580.95.05';
export const DEFAULT_CUDA_VERSION = '13.0';

/** Feature discovery's GPU family for the products the test clusters use. */
export function gpuFamily(product: string): string {
  if (/H100|H200|GH200/.test(product)) return 'hopper';
  if (/B200|GB200|B300|GB300/.test(product)) return 'blackwell';
  if (/A100|A10G|A30/.test(product)) return 'ampere';
  if (/L4|L40/.test(product)) return 'ada-lovelace';
  return 'unknown';
}

export interface OsShape {
  readonly id: string;
  readonly versionId: string;
  readonly prettyName: string;
}

export interface NodeGroupShape {
  /** The EKS node group's name; Node names are derived from it. */
  readonly name: string;
  readonly instanceType: string;
  readonly count: number;
  readonly cpu: string;
  readonly memory: string;
  readonly gpu?: GpuShape;
  readonly taints?: readonly V1Taint[];
  readonly os?: OsShape;
  readonly labels?: Readonly<Record<string, string>>;
}

/** What AICR's EKS recipes expect. */
export const UBUNTU_2404: OsShape = { id: 'ubuntu', versionId: '24.04', prettyName: 'Ubuntu 24.04.3 LTS' };

/** The default local cluster: one CPU system group and one H100 × 8 GPU group. */
export const DEFAULT_NODE_GROUPS: readonly NodeGroupShape[] = [
  { name: 'system', instanceType: 'm7i.2xlarge', count: 1, cpu: '8', memory: '32Gi' },
  {
    name: 'gpu-h100',
    instanceType: 'p5.48xlarge',
    count: 1,
    cpu: '192',
    memory: '2048Gi',
    gpu: { product: 'NVIDIA-H100-80GB-HBM3', count: 8, memoryMiB: 81559 },
  },
];

export function osRelease(os: OsShape): string {
  const codename = os.id === 'ubuntu' && os.versionId === '24.04' ? 'noble' : '';
  return [
    `PRETTY_NAME="${os.prettyName}"`,
    `NAME="${os.id === 'ubuntu' ? 'Ubuntu' : os.id}"`,
    `VERSION_ID="${os.versionId}"`,
    `ID=${os.id}`,
    ...(codename ? [`VERSION_CODENAME=${codename}`] : []),
    '',
  ].join('\n');
}

function gpuLabels(gpu: GpuShape | undefined): Record<string, string> {
  if (!gpu) return {};
  return {
    'nvidia.com/gpu.present': 'true',
    'nvidia.com/gpu.product': gpu.product,
    'nvidia.com/gpu.count': String(gpu.count),
    'nvidia.com/gpu.family': gpuFamily(gpu.product),
    'nvidia.com/cuda.driver-version.full': gpu.driverVersion ?? DEFAULT_DRIVER_VERSION,
    'nvidia.com/cuda.runtime-version.full': gpu.cudaVersion ?? DEFAULT_CUDA_VERSION,
    ...(gpu.memoryMiB === undefined ? {} : { 'nvidia.com/gpu.memory': String(gpu.memoryMiB) }),
  };
}

export function nodeName(group: NodeGroupShape, index: number): string {
  return `${group.name}-${index}.ec2.internal`;
}

/** The Node objects of one group, as they are created (spec and metadata only). */
export function nodesOf(group: NodeGroupShape): V1Node[] {
  const os = group.os ?? UBUNTU_2404;
  return Array.from({ length: group.count }, (_, i) => {
    const name = nodeName(group, i);
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          [PROCESS_NODE_LABEL]: 'true',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'node.kubernetes.io/instance-type': group.instanceType,
          'eks.amazonaws.com/nodegroup': group.name,
          'eks.amazonaws.com/capacityType': 'ON_DEMAND',
          'topology.kubernetes.io/region': 'us-east-1',
          'topology.kubernetes.io/zone': 'us-east-1a',
          ...gpuLabels(group.gpu),
          ...group.labels,
        },
        annotations: { [OS_RELEASE_ANNOTATION]: osRelease(os) },
      },
      spec: { taints: [...(group.taints ?? [])] },
    };
  });
}

/** The status a kubelet would report for a Node of this group, Ready. */
export interface KubeletFacts {
  readonly k8sVersion: string;
  /** Where the process node serves the kubelet's log endpoint. */
  readonly kubeletPort: number;
}

export function readyStatus(group: NodeGroupShape, facts: KubeletFacts, now: Date): V1NodeStatus {
  const os = group.os ?? UBUNTU_2404;
  const resources: Record<string, string> = {
    cpu: group.cpu,
    memory: group.memory,
    pods: '110',
    'ephemeral-storage': '500Gi',
  };
  if (group.gpu) resources['nvidia.com/gpu'] = String(group.gpu.count);
  const since = now;
  return {
    capacity: resources,
    allocatable: resources,
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: facts.kubeletPort } },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        message: 'process node is posting ready status (simulated node)',
        lastHeartbeatTime: since,
        lastTransitionTime: since,
      },
      {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'KubeletHasSufficientMemory',
        lastHeartbeatTime: since,
        lastTransitionTime: since,
      },
      {
        type: 'DiskPressure',
        status: 'False',
        reason: 'KubeletHasNoDiskPressure',
        lastHeartbeatTime: since,
        lastTransitionTime: since,
      },
      {
        type: 'PIDPressure',
        status: 'False',
        reason: 'KubeletHasSufficientPID',
        lastHeartbeatTime: since,
        lastTransitionTime: since,
      },
    ],
    nodeInfo: {
      architecture: 'amd64',
      bootID: '',
      containerRuntimeVersion: 'process-node://stand-in',
      kernelVersion: '6.8.0-1021-aws',
      kubeProxyVersion: '',
      kubeletVersion: facts.k8sVersion,
      machineID: '',
      operatingSystem: 'linux',
      osImage: os.prettyName,
      systemUUID: '',
    },
  };
}

// The cluster's node groups as the Node objects describe them: what a recipe depends on (instance
// type, GPU product and count, taints), grouped by the node-group label. How many Nodes a group
// has is reported but is not part of its fingerprint, so scaling a group is not a new cluster.
import { GPU_RESOURCE, NODE_LABEL } from '../api/constants.ts';
import type { ClusterRuntimeStatus } from '../api/clusterRuntime.ts';

export type NodeGroup = NonNullable<NonNullable<ClusterRuntimeStatus['discovery']>['nodeGroups']>[number];

/** The parts of a Node discovery reads. */
export interface NodeFacts {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> | undefined };
  readonly spec?: {
    readonly taints?: readonly { readonly key?: string; readonly value?: string; readonly effect?: string }[];
  };
  readonly status?: { readonly capacity?: Readonly<Record<string, string>> };
}

export interface NodeGroupReading {
  readonly groups: readonly NodeGroup[];
  /** Groups whose labels disagree with their capacity, in words naming the cause and the fix. */
  readonly problems: readonly string[];
}

function groupName(labels: Readonly<Record<string, string>>): string {
  return labels[NODE_LABEL.nodeGroup] ?? labels[NODE_LABEL.instanceType] ?? 'ungrouped';
}

/** Taints Kubernetes itself puts on a Node for its health (not-ready, unreachable, pressure): not the group's. */
const HEALTH_TAINT = /^node\.(cloudprovider\.)?kubernetes\.io\//;

function taintsOf(node: NodeFacts): string[] {
  return (node.spec?.taints ?? [])
    .filter((t) => !HEALTH_TAINT.test(t.key ?? ''))
    .map((t) => `${t.key ?? ''}${t.value ? `=${t.value}` : ''}:${t.effect ?? ''}`)
    .sort();
}

function groupOf(node: NodeFacts, capacity: number): Omit<NodeGroup, 'nodes'> {
  const labels = node.metadata.labels ?? {};
  const product = labels[NODE_LABEL.gpuProduct];
  const instanceType = labels[NODE_LABEL.instanceType];
  return {
    name: groupName(labels),
    ...(instanceType ? { instanceType } : {}),
    ...(capacity > 0 && product ? { gpu: { product, count: capacity } } : {}),
    taints: taintsOf(node),
  };
}

/** What about a Node's GPU labels does not add up with its capacity, if anything. */
function gpuProblem(node: NodeFacts, group: string, capacity: number): string | undefined {
  const labels = node.metadata.labels ?? {};
  const labelled = labels[NODE_LABEL.gpuCount];
  const where = `Node ${node.metadata.name} (node group ${group})`;
  if (capacity > 0 && !labels[NODE_LABEL.gpuProduct])
    return (
      `${where} has ${capacity} ${GPU_RESOURCE} but no ${NODE_LABEL.gpuProduct} label; ` +
      'check that GPU feature discovery runs on it'
    );
  if (labelled !== undefined && Number(labelled) !== capacity) {
    return (
      `${where} is labelled ${NODE_LABEL.gpuCount}=${labelled} but its capacity has ${capacity} ${GPU_RESOURCE}; ` +
      'check its device plugin and GPU feature discovery'
    );
  }
  if (labels[NODE_LABEL.gpuPresent] === 'true' && capacity === 0)
    return (
      `${where} is labelled ${NODE_LABEL.gpuPresent}=true but its capacity has no ${GPU_RESOURCE}; ` +
      'check its device plugin'
    );
  return undefined;
}

/** One Node's group facts, and what about it does not add up. */
function factsOf(node: NodeFacts): { group: Omit<NodeGroup, 'nodes'>; problem?: string } {
  const capacity = Number(node.status?.capacity?.[GPU_RESOURCE] ?? 0);
  const group = groupOf(node, capacity);
  const problem = gpuProblem(node, group.name, capacity);
  return problem ? { group, problem } : { group };
}

export function readNodeGroups(nodes: readonly NodeFacts[]): NodeGroupReading {
  const groups = new Map<string, NodeGroup>();
  const problems: string[] = [];
  for (const node of nodes) {
    const { group, problem } = factsOf(node);
    if (problem) problems.push(problem);
    const earlier = groups.get(group.name);
    groups.set(group.name, { ...(earlier ?? group), nodes: (earlier?.nodes ?? 0) + 1 });
  }
  // GPU groups first, then by name: the order status shows and the fingerprint hashes.
  const ordered = [...groups.values()].sort((a, b) => Number(!a.gpu) - Number(!b.gpu) || a.name.localeCompare(b.name));
  return { groups: ordered, problems };
}

/** What about the node groups makes a new snapshot: not how many Nodes each has. */
export function nodeGroupFingerprint(groups: readonly NodeGroup[]): string {
  return JSON.stringify(groups.map((g) => ({ ...g, nodes: undefined })));
}

/** The fingerprint of one Node for the forwarder: the group facts it contributes. */
export function nodeFingerprint(node: NodeFacts): string {
  return JSON.stringify(factsOf(node).group);
}

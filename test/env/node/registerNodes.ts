// Registers a node group's Nodes the way a kubelet registers itself: create the Node, post a
// Ready status, and (standing in for the node-lifecycle controller, which is off) drop the
// not-ready taint the API server's admission adds to every new Node.
import type { CoreV1Api, V1Node } from '@kubernetes/client-node';
import { type KubeletFacts, type NodeGroupShape, nodesOf, readyStatus } from './nodeShapes.ts';

const NOT_READY_TAINT = 'node.kubernetes.io/not-ready';

export async function registerNodeGroup(
  core: CoreV1Api,
  group: NodeGroupShape,
  facts: KubeletFacts,
): Promise<string[]> {
  const names: string[] = [];
  for (const node of nodesOf(group)) {
    const name = node.metadata?.name ?? '';
    await createOrKeep(core, node);
    const live = await core.readNode({ name });
    live.status = readyStatus(group, facts, new Date());
    await core.replaceNodeStatus({ name, body: live });
    const afterStatus = await core.readNode({ name });
    const wanted = group.taints ?? [];
    afterStatus.spec = {
      ...afterStatus.spec,
      taints: [
        ...wanted,
        ...(afterStatus.spec?.taints ?? []).filter(
          (t) => t.key !== NOT_READY_TAINT && !wanted.some((w) => w.key === t.key),
        ),
      ],
    };
    await core.replaceNode({ name, body: afterStatus });
    names.push(name);
  }
  return names;
}

async function createOrKeep(core: CoreV1Api, node: V1Node): Promise<void> {
  try {
    await core.createNode({ body: node });
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
}

export async function deleteNodeGroup(core: CoreV1Api, group: NodeGroupShape): Promise<void> {
  for (const node of nodesOf(group)) {
    try {
      await core.deleteNode({ name: node.metadata?.name ?? '' });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
    }
  }
}

// GPU-1: which protected Pods run on GPU Nodes now. One list of the GPU Nodes and one of the
// running Pods per question; nothing is ever evicted.
import { GPU_NODE_SELECTOR } from '../../api/workloads.ts';
import { KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import type { RunningWork, WorkloadGuard } from '../rules/workloadGuard.ts';

const SHOWN = 10;

interface PodFacts {
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly spec?: { readonly nodeName?: string; readonly priorityClassName?: string };
  readonly status?: { readonly phase?: string };
}

/** Protected Pods running on GPU Nodes: matching the selector, or at one of the priority classes. */
export async function runningWork(kube: KubePort, guard: WorkloadGuard): Promise<RunningWork> {
  const nodes = await kube.list(KIND.node, { labelSelector: GPU_NODE_SELECTOR });
  const gpuNodes = new Set(nodes.items.map((n) => n.metadata.name));
  if (gpuNodes.size === 0) return { shown: [], count: 0, gpuNodes: 0 };
  // With priority classes a Pod may count without matching the selector, so the API cannot filter by it.
  const bySelector = guard.selector && guard.priorityClasses.length === 0 ? { labelSelector: guard.selector } : {};
  const pods = await kube.list(KIND.pod, { fieldSelector: 'status.phase=Running', ...bySelector });
  const matched = new Set(
    guard.priorityClasses.length > 0 && guard.selector
      ? (await kube.list(KIND.pod, { fieldSelector: 'status.phase=Running', labelSelector: guard.selector })).items.map(
          key,
        )
      : [],
  );
  const found = (pods.items as unknown as PodFacts[])
    .filter((p) => p.status?.phase === 'Running' && gpuNodes.has(p.spec?.nodeName ?? ''))
    .filter(
      (p) =>
        guard.priorityClasses.length === 0 ||
        guard.priorityClasses.includes(p.spec?.priorityClassName ?? '') ||
        matched.has(key(p)),
    )
    .map(key)
    .sort();
  return { shown: found.slice(0, SHOWN), count: found.length, gpuNodes: gpuNodes.size };
}

function key(p: { readonly metadata: { readonly name: string; readonly namespace?: string | undefined } }): string {
  return `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
}

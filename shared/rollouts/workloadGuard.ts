// GPU-1: which releases disrupt GPU Nodes and which protected Pods run on them now. Read from
// the raw spec on its own, like the maintenance windows: a mistake elsewhere in the spec must not
// lift the guard, and a guard that does not validate holds disruptive steps (the safe side).
// One list of the GPU Nodes and one of the running Pods per question; nothing is ever evicted.
import { DISRUPTIVE_COMPONENTS, GPU_NODE_SELECTOR } from '../api/workloads.ts';
import { parseDuration } from '../api/duration.ts';
import { UNREADABLE, type Unreadable, readWorkloads } from '../api/runtimeReading.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';

export interface WorkloadGuard {
  readonly selector?: string;
  readonly priorityClasses: readonly string[];
  readonly disruptive: ReadonlySet<string>;
  readonly maxWaitMs: number;
}

export type RuntimeGuard = WorkloadGuard | 'none' | Unreadable;

export function readGuard(spec: unknown): RuntimeGuard {
  const w = readWorkloads(spec);
  if (w === UNREADABLE) return UNREADABLE;
  if (!w || (!w.selector && !(w.priorityClasses?.length ?? 0))) return 'none';
  return {
    ...(w.selector ? { selector: w.selector } : {}),
    priorityClasses: w.priorityClasses ?? [],
    disruptive: new Set([...DISRUPTIVE_COMPONENTS, ...(w.disruptiveReleases ?? [])]),
    maxWaitMs: parseDuration(w.maxWait) ?? 0,
  };
}

/** Whether a step of `release` must wait for protected work; an unreadable guard counts the defaults. */
export function disrupts(guard: RuntimeGuard, release: string): boolean {
  if (guard === 'none') return false;
  if (guard === UNREADABLE) return (DISRUPTIVE_COMPONENTS as readonly string[]).includes(release);
  return guard.disruptive.has(release);
}

export interface RunningWork {
  /** namespace/name of the protected Pods, up to the first ten, sorted. */
  readonly shown: readonly string[];
  readonly count: number;
  readonly gpuNodes: number;
}

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

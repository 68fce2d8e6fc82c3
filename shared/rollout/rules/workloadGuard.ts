// GPU-1: which releases disrupt GPU Nodes and which work on them is protected. Read from
// the raw spec on its own, like the maintenance windows: a mistake elsewhere in the spec must not
// lift the guard, and a guard that does not validate holds disruptive steps (the safe side).
import { DISRUPTIVE_COMPONENTS } from '../../api/workloads.ts';
import { parseDuration } from '../../api/duration.ts';
import { UNREADABLE, type Unreadable, readWorkloads } from '../../api/runtimeReading.ts';

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

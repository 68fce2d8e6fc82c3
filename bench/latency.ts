// Change -> status latency: the time from a spec change being accepted by the API server to
// a watch seeing the runtime's status report that generation.
import { CustomObjectsApi, PatchStrategy, Watch, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, KINDS } from '../shared/api/constants.ts';
import type { RuntimeObject } from '../shared/kube/kinds.ts';

const RUNTIME = {
  group: API_GROUP,
  version: API_VERSION,
  plural: KINDS.clusterRuntime.plural,
  name: 'cluster',
} as const;

export interface LatencySummary {
  readonly n: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

export function summarise(samples: readonly number[]): LatencySummary {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? NaN;
  const round = (x: number): number => Math.round(x * 10) / 10;
  return {
    n: s.length,
    p50Ms: round(at(0.5)),
    p90Ms: round(at(0.9)),
    p99Ms: round(at(0.99)),
    maxMs: round(s[s.length - 1] ?? NaN),
    meanMs: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
}

/** Makes `count` spec changes one after another and times each until its status is observed. */
export async function measureChanges(kc: KubeConfig, count: number, timeoutMs = 30_000): Promise<number[]> {
  const co = kc.makeApiClient(CustomObjectsApi);
  const waiters = new Map<number, (t: number) => void>();
  const path = `/apis/${API_GROUP}/${API_VERSION}/${KINDS.clusterRuntime.plural}`;
  const ctl = await new Watch(kc).watch(
    path,
    { fieldSelector: 'metadata.name=cluster' },
    (_type, obj: RuntimeObject) => {
      const g = obj.status?.observedGeneration;
      if (g !== undefined) waiters.get(g)?.(performance.now());
    },
    () => undefined,
  );
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const updated = (await co.patchClusterCustomObject(
        { ...RUNTIME, body: { spec: { actionTimeout: `${(i % 500) + 1}m${i % 2}s` } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as RuntimeObject;
      const t0 = performance.now();
      const generation = updated.metadata.generation ?? 0;
      const seen = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`generation ${generation} not observed in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.set(generation, (t) => {
          clearTimeout(timer);
          resolve(t);
        });
      });
      waiters.delete(generation);
      samples.push(seen - t0);
    }
  } finally {
    ctl.abort();
  }
  return samples;
}

// The control plane's own time around AICR runs, on the test cluster with the real aicr: from a
// spec change to the first Job of its resolution, and from a Job finishing to the control
// plane's next act (the next stage's Job, or Resolved=True after the last stage). The time AICR
// itself takes is not counted. Each run is a new runtime (a new UID is new input for every
// stage), so each is a full resolution and nothing is served from an earlier one.
import { CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, KINDS, LABEL, NAMESPACES } from '../shared/api/constants.ts';
import type { JobObject, RuntimeObject } from '../shared/kube/kinds.ts';
import { type LatencySummary, summarise } from './latency.ts';
import { isFinished } from '../shared/aicr/runJobs.ts';

const RUNTIME = { group: API_GROUP, version: API_VERSION, plural: KINDS.clusterRuntime.plural } as const;
const SPEC = {
  aicrVersion: 'v0.11.1',
  criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
};

export interface AicrRunFigures {
  readonly runs: number;
  /** Runtime created → its first Job (the snapshot agent) seen by a watch. */
  readonly changeToJob: LatencySummary;
  /** A Job's completion seen → the control plane's next act seen. */
  readonly jobToNext: LatencySummary;
  /** The same, for each of the three: snapshot → recipe Job, recipe → render Job, render → Resolved. */
  readonly jobToNextByStage: Readonly<Record<'snapshot' | 'recipe' | 'render', LatencySummary>>;
  /**
   * Runtime created → Resolved=True naming its plan, less the time its three Jobs ran: the control
   * plane's own share.
   */
  readonly overhead: LatencySummary;
  /**
   * The slowest Job finished → next act, and which run it was in: the first run mirrors every chart
   * into a new registry.
   */
  readonly slowest: { readonly run: number; readonly stage: string; readonly ms: number };
}

interface Seen {
  readonly createdAt: Map<string, number>;
  readonly completedAt: Map<string, number>;
  readonly resolvedAt: Map<string, number>;
}

async function watchAll(kc: KubeConfig, seen: Seen): Promise<() => void> {
  const onJob = (type: string, job: JobObject): void => {
    const now = performance.now();
    // By name and UID: a name can come back for other Jobs with the same inputs.
    const key = `${job.metadata.name}@${job.metadata.uid}`;
    if (type === 'ADDED' && !seen.createdAt.has(key)) seen.createdAt.set(key, now);
    // A run ends when the Job controller first says it succeeded, as the product reads it.
    if (isFinished(job, 'Complete') && !seen.completedAt.has(key)) seen.completedAt.set(key, now);
  };
  // The snapshot agent runs in aicr-discovery; recipe and render in aicr-jobs.
  const jobs = await Promise.all(
    [NAMESPACES.discovery, NAMESPACES.jobs].map((ns) =>
      new Watch(kc).watch(
        `/apis/batch/v1/namespaces/${ns}/jobs`,
        { labelSelector: LABEL.stage },
        onJob,
        () => undefined,
      ),
    ),
  );
  const runtime = await new Watch(kc).watch(
    `/apis/${API_GROUP}/${API_VERSION}/${KINDS.clusterRuntime.plural}`,
    { fieldSelector: 'metadata.name=cluster' },
    (_t, rt: RuntimeObject) => {
      const c = rt.status?.conditions?.find((x) => x.type === 'Resolved');
      if (c?.status === 'True' && !seen.resolvedAt.has(rt.metadata.uid))
        seen.resolvedAt.set(rt.metadata.uid, performance.now());
    },
    () => undefined,
  );
  return () => {
    for (const j of jobs) j.abort();
    runtime.abort();
  };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`bench: ${what} not seen in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** `runs` resolutions, each of a new runtime, timed by watches; `recreate` deletes the previous runtime. */
export async function measureAicrRuns(
  kc: KubeConfig,
  runs: number,
  recreate: () => Promise<void>,
): Promise<AicrRunFigures> {
  const co = kc.makeApiClient(CustomObjectsApi);
  const seen: Seen = { createdAt: new Map(), completedAt: new Map(), resolvedAt: new Map() };
  const stop = await watchAll(kc, seen);
  const changeToJob: number[] = [];
  const byStage = { snapshot: [] as number[], recipe: [] as number[], render: [] as number[] };
  const overhead: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      await recreate();
      const before = new Set(seen.createdAt.keys());
      const created = (await co.createClusterCustomObject({
        ...RUNTIME,
        body: {
          apiVersion: `${API_GROUP}/${API_VERSION}`,
          kind: KINDS.clusterRuntime.kind,
          metadata: { name: 'cluster' },
          spec: SPEC,
        },
      })) as RuntimeObject;
      const t0 = performance.now();
      const fresh = (stage: string): string | undefined =>
        [...seen.createdAt.keys()].find((n) => !before.has(n) && n.startsWith(`aicr-${stage}-`));
      const snapshot = await until('the snapshot Job', () => fresh('snapshot'));
      changeToJob.push((seen.createdAt.get(snapshot) ?? t0) - t0);
      const recipe = await until('the recipe Job', () => fresh('recipe'));
      const snapshotDone = await until('the snapshot Job complete', () => seen.completedAt.get(snapshot));
      byStage.snapshot.push((seen.createdAt.get(recipe) ?? snapshotDone) - snapshotDone);
      const render = await until('the render Job', () => fresh('render'));
      const recipeDone = await until('the recipe Job complete', () => seen.completedAt.get(recipe));
      byStage.recipe.push((seen.createdAt.get(render) ?? recipeDone) - recipeDone);
      const renderDone = await until('the render Job complete', () => seen.completedAt.get(render));
      const resolved = await until('Resolved=True', () => seen.resolvedAt.get(created.metadata.uid));
      byStage.render.push(resolved - renderDone);
      const ran = [snapshot, recipe, render].reduce(
        (sum, j) => sum + ((seen.completedAt.get(j) ?? 0) - (seen.createdAt.get(j) ?? 0)),
        0,
      );
      overhead.push(resolved - t0 - ran);
    }
  } finally {
    stop();
  }
  const slowest = (['snapshot', 'recipe', 'render'] as const)
    .flatMap((stage) => byStage[stage].map((ms, run) => ({ run: run + 1, stage, ms: Math.round(ms * 10) / 10 })))
    .reduce((a, b) => (b.ms > a.ms ? b : a), { run: 0, stage: 'none', ms: 0 });
  return {
    runs,
    slowest,
    changeToJob: summarise(changeToJob),
    jobToNext: summarise([...byStage.snapshot, ...byStage.recipe, ...byStage.render]),
    jobToNextByStage: {
      snapshot: summarise(byStage.snapshot),
      recipe: summarise(byStage.recipe),
      render: summarise(byStage.render),
    },
    overhead: summarise(overhead),
  };
}

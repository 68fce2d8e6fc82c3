// A storm: many spec changes to one runtime as fast as the API server takes them. Reports how
// many watch events each reconcile of the resolve step stood for (coalescing).
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, KINDS } from '../shared/api/constants.ts';
import type { LocalControlPlane } from '../shared/local/controlPlane.ts';

const RUNTIME = {
  group: API_GROUP,
  version: API_VERSION,
  plural: KINDS.clusterRuntime.plural,
  name: 'cluster',
} as const;

export interface StormFigures {
  readonly updates: number;
  readonly eventsForwarded: number;
  readonly reconciles: number;
  readonly eventsPerReconcile: number;
  readonly seconds: number;
}

/** Sends `updates` annotation changes, `parallel` at a time, then waits for the queue to drain. */
export async function storm(
  kc: KubeConfig,
  cp: LocalControlPlane,
  reconciles: () => number,
  { updates = 1000, parallel = 10 } = {},
): Promise<StormFigures> {
  const co = kc.makeApiClient(CustomObjectsApi);
  const started = Date.now();
  const before = { events: cp.forwarder.stats.enqueued + cp.forwarder.stats.coalesced, runs: reconciles() };
  for (let i = 0; i < updates; i += parallel) {
    await Promise.all(
      Array.from({ length: Math.min(parallel, updates - i) }, (_, j) =>
        co.patchClusterCustomObject(
          { ...RUNTIME, body: { metadata: { annotations: { 'bench.aicr.run/storm': String(i + j) } } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      ),
    );
  }
  // Let the last changes reach the queue and run.
  await new Promise((r) => setTimeout(r, 1000));
  // Rechecks armed minutes or hours ahead (Argo CD's availability, the registry token) are not the storm's.
  await cp.queue.idle({ timers: false });
  const eventsForwarded = cp.forwarder.stats.enqueued + cp.forwarder.stats.coalesced - before.events;
  const runs = reconciles() - before.runs;
  return {
    updates,
    eventsForwarded,
    reconciles: runs,
    eventsPerReconcile: Math.round((eventsForwarded / Math.max(1, runs)) * 10) / 10,
    seconds: (Date.now() - started) / 1000,
  };
}

// status.discovery as the snapshot step wrote it, read back typed; anything else reads as empty.
import type { ClusterRuntimeStatus } from '../api/clusterRuntime.ts';
import { readStatus } from '../api/runtimeReading.ts';
import type { RuntimeObject } from '../kube/kinds.ts';

export type Discovery = NonNullable<ClusterRuntimeStatus['discovery']>;
export type SnapshotStatus = NonNullable<Discovery['snapshot']>;

export function discoveryOf(runtime: RuntimeObject): Discovery {
  return readStatus(runtime.status).discovery ?? {};
}

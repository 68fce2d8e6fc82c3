// status.discovery as the snapshot step wrote it, read back typed; anything else reads as empty.
import { ClusterRuntimeStatusSchema, type ClusterRuntimeStatus } from '../api/clusterRuntime.ts';
import type { RuntimeObject } from '../kube/kinds.ts';

export type Discovery = NonNullable<ClusterRuntimeStatus['discovery']>;
export type SnapshotStatus = NonNullable<Discovery['snapshot']>;

const DiscoverySchema = ClusterRuntimeStatusSchema.shape.discovery;

export function discoveryOf(runtime: RuntimeObject): Discovery {
  const parsed = DiscoverySchema.safeParse((runtime.status as { discovery?: unknown } | undefined)?.discovery);
  return (parsed.success ? parsed.data : undefined) ?? {};
}

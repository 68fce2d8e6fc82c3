// What resolution takes from discovery (DISC-1, DISC-2): the latest snapshot the snapshot step
// named in status.discovery, read from aicr-system, or why there is none to build a recipe from.
import { type Snapshot, readSnapshot } from '../../aicr/snapshotStage.ts';
import { discoveryOf } from '../../discovery/status.ts';
import type { KubePort } from '../../kube/port.ts';
import type { RuntimeObject } from '../../kube/kinds.ts';
import { type DiscoveryReason, isDiscoveryReason } from '../../api/reasons.ts';

export type Discovered =
  | { readonly state: 'ready'; readonly snapshot: Snapshot }
  | { readonly state: 'waiting'; readonly message: string }
  | { readonly state: 'failed'; readonly reason: DiscoveryReason; readonly message: string };

export async function discoveredSnapshot(kube: KubePort, runtime: RuntimeObject): Promise<Discovered> {
  const snapshot = discoveryOf(runtime).snapshot;
  const failure = snapshot?.failure;
  if (failure && isDiscoveryReason(failure.reason))
    return { state: 'failed', reason: failure.reason, message: failure.message };
  if (!snapshot?.configMap) {
    return {
      state: 'waiting',
      message: `discovering the cluster: ${snapshot?.waiting ?? 'waiting for the first snapshot of the cluster'}`,
    };
  }
  const read = await readSnapshot(kube, snapshot.configMap);
  if (!read.ok)
    return {
      state: 'failed',
      reason: 'SnapshotUnreadable',
      message: `the latest snapshot cannot be read: ${read.problem}; the snapshot step replaces it with a fresh snapshot`,
    };
  return { state: 'ready', snapshot: read.output };
}

// What resolution takes from discovery (DISC-1, DISC-2): the latest snapshot the snapshot step
// named in status.discovery, or why there is none to build a recipe from. Its digest, recorded
// beside the name, is all a stage's inputs need; the document itself is read from aicr-system
// only when a recipe Job is to be given it, so a look that finds its stages done reads no snapshot.
import { readSnapshot } from '../../aicr/snapshotStage.ts';
import { discoveryOf } from '../../discovery/status.ts';
import type { KubePort } from '../../kube/port.ts';
import type { RuntimeObject } from '../../kube/kinds.ts';
import { type DiscoveryReason, isDiscoveryReason } from '../../api/reasons.ts';

export interface DiscoveredSnapshot {
  readonly digest: string;
  /** The snapshot document; rejects with SnapshotUnreadableError when it cannot be read as recorded. */
  readonly text: () => Promise<string>;
}

export type Discovered =
  | { readonly state: 'ready'; readonly snapshot: DiscoveredSnapshot }
  | { readonly state: 'waiting'; readonly message: string }
  | { readonly state: 'failed'; readonly reason: DiscoveryReason; readonly message: string };

export class SnapshotUnreadableError extends Error {}

const unreadable = (problem: string): string =>
  `the latest snapshot cannot be read: ${problem}; the snapshot step replaces it with a fresh snapshot`;

/** What resolution reports for a snapshot it cannot read, found at once or when a recipe Job needed it. */
export function unreadableSnapshot(message: string): Extract<Discovered, { state: 'failed' }> {
  return { state: 'failed', reason: 'SnapshotUnreadable', message };
}

/** Reads the snapshot `name`, which must still be the document of `digest`. */
async function readRecorded(kube: KubePort, name: string, digest: string): Promise<string> {
  const read = await readSnapshot(kube, name);
  if (!read.ok) throw new SnapshotUnreadableError(unreadable(read.problem));
  if (read.output.digest !== digest)
    throw new SnapshotUnreadableError(unreadable(`ConfigMap ${name} no longer holds the snapshot of ${digest}`));
  return read.output.text;
}

export async function discoveredSnapshot(kube: KubePort, runtime: RuntimeObject): Promise<Discovered> {
  const snapshot = discoveryOf(runtime).snapshot;
  const failure = snapshot?.failure;
  if (failure && isDiscoveryReason(failure.reason))
    return { state: 'failed', reason: failure.reason, message: failure.message };
  const name = snapshot?.configMap;
  if (!name) {
    return {
      state: 'waiting',
      message: `discovering the cluster: ${snapshot?.waiting ?? 'waiting for the first snapshot of the cluster'}`,
    };
  }
  const digest = snapshot.digest;
  if (digest) return { state: 'ready', snapshot: { digest, text: () => readRecorded(kube, name, digest) } };
  // A status written before the digest was recorded: the digest comes from the document itself.
  const read = await readSnapshot(kube, name);
  if (!read.ok) return unreadableSnapshot(unreadable(read.problem));
  const text = read.output.text;
  return { state: 'ready', snapshot: { digest: read.output.digest, text: () => Promise.resolve(text) } };
}

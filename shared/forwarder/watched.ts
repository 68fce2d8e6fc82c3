// The kinds the forwarder watches, and for each: which runtime an object concerns (from its
// labels or annotations, never its body) and what about it makes work. Steps name these in the
// step table's `wakesOn`; a kind no step names is not watched.
import { FORWARDER_CHECKPOINT } from '../api/constants.ts';
import { KIND, type Kind, type ObjectMeta, type RuntimeObject } from '../kube/kinds.ts';
import type { Selection } from '../kube/port.ts';
import { STEP_TABLE, type StepRow, WAKE, type Wake } from '../steps/table.ts';

export interface RuntimeRef {
  readonly name: string;
  readonly uid: string;
}

export interface WatchedKind<T extends { readonly metadata: ObjectMeta }> {
  readonly wake: Wake;
  readonly kind: Kind<T>;
  /** Narrows the watch to the control plane's own objects where a label can say so. */
  readonly selection?: Selection;
  readonly runtimeOf: (obj: T) => RuntimeRef | undefined;
  /** Two events with the same fingerprint for one object are one change. */
  readonly fingerprint: (obj: T) => string;
}

export const RUNTIME_WATCH: WatchedKind<RuntimeObject> = {
  wake: WAKE.runtimeChange,
  kind: KIND.clusterRuntime,
  runtimeOf: (obj) => ({ name: obj.metadata.name, uid: obj.metadata.uid }),
  // Its spec (generation), annotations and deletion; status writes, our own, are not work.
  fingerprint: (obj) => JSON.stringify([obj.metadata.generation ?? 0, obj.metadata.annotations ?? {}, obj.metadata.deletionTimestamp ?? null]),
};

export const WATCHED: readonly WatchedKind<RuntimeObject>[] = [RUNTIME_WATCH];

/** The kinds some step of the table wakes on: what the forwarder watches. */
export function watchedBy(table: readonly StepRow[] = STEP_TABLE): WatchedKind<RuntimeObject>[] {
  const woken = new Set(table.flatMap((r) => [...r.wakesOn] as string[]));
  return WATCHED.filter((w) => woken.has(w.wake));
}

/** Each watched kind keeps its own checkpoint ConfigMap, so one kind's progress never moves another's. */
export function checkpointName(w: WatchedKind<{ readonly metadata: ObjectMeta }>): string {
  return w.kind === KIND.clusterRuntime ? FORWARDER_CHECKPOINT.name : `${FORWARDER_CHECKPOINT.name}-${w.kind.plural}`;
}

// The kinds the forwarder watches, and for each: which runtime an object concerns (from its
// labels or annotations, never its body) and what about it makes work. Steps name these in the
// step table's `wakesOn`; a kind no step names is not watched.
import { ANNOTATION, FORWARDER_CHECKPOINT, LABEL, NAMESPACES, RUNTIME_NAME } from '../api/constants.ts';
import { KIND, type JobObject, type Kind, type ObjectMeta, type PodObject, type RuntimeObject } from '../kube/kinds.ts';
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
  runtimeOf(obj: T): RuntimeRef | undefined;
  /**
   * Overrides the forwarder's coalescing window for this kind: AICR's Jobs and Pods change a
   * few times per run, and each change is the control plane's cue to act, so none is held back.
   */
  readonly coalesceMs?: number;
  /** Whether this object's deletion is work; by default every deletion is. */
  deletionIsNews?(obj: T): boolean;
  /** Whether an object first seen in this state is work; by default it is. Objects the control plane just created are not. */
  arrivalIsNews?(obj: T): boolean;
  /** Two events with the same fingerprint for one object are one change. */
  fingerprint(obj: T): string;
}

/** Any object the forwarder can watch. */
export type Watchable = { readonly metadata: ObjectMeta };

export const RUNTIME_WATCH: WatchedKind<RuntimeObject> = {
  wake: WAKE.runtimeChange,
  kind: KIND.clusterRuntime,
  runtimeOf: (obj) => ({ name: obj.metadata.name, uid: obj.metadata.uid }),
  // Its spec (generation), annotations and deletion; status writes, our own, are not work.
  fingerprint: (obj) => JSON.stringify([obj.metadata.generation ?? 0, obj.metadata.annotations ?? {}, obj.metadata.deletionTimestamp ?? null]),
};

/** AICR's Jobs and their Pods name their runtime in an annotation the control plane set. */
function runtimeFromAnnotation(obj: Watchable): RuntimeRef | undefined {
  const uid = obj.metadata.annotations?.[ANNOTATION.runtimeUID];
  return uid ? { name: RUNTIME_NAME, uid } : undefined;
}

const AICR_RUNS = { namespace: NAMESPACES.jobs, labelSelector: LABEL.stage };

export const AICR_JOB_WATCH: WatchedKind<JobObject> = {
  wake: WAKE.aicrRun,
  kind: KIND.job,
  selection: AICR_RUNS,
  runtimeOf: runtimeFromAnnotation,
  coalesceMs: 0,
  // A Job just created, or a successful one the step deleted after reading it, is no news; a
  // failed one deleted by a person lets its stage run again (JOB-6).
  arrivalIsNews: (job) => (job.status?.conditions ?? []).length > 0,
  deletionIsNews: (job) => !(job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True'),
  // Whether the run ended; the control plane's own annotations and TTL changes are not news.
  fingerprint: (job) => JSON.stringify([(job.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`), job.metadata.deletionTimestamp ?? null]),
};

/** The fingerprint of a Pod that nothing holds up. */
const QUIET_POD = JSON.stringify([[], []]);

export const AICR_POD_WATCH: WatchedKind<PodObject> = {
  wake: WAKE.aicrRun,
  kind: KIND.pod,
  selection: AICR_RUNS,
  runtimeOf: runtimeFromAnnotation,
  coalesceMs: 0,
  // A Pod goes with its Job, which is watched itself; a new Pod is news only when it is held up.
  deletionIsNews: () => false,
  arrivalIsNews: (pod) => AICR_POD_WATCH.fingerprint(pod) !== QUIET_POD,
  // Only what a wait message is made of: a refusal to schedule or a failed pull. How a run ended
  // is the Job's to say.
  fingerprint: (pod) =>
    JSON.stringify([
      (pod.status?.conditions ?? []).filter((c) => c.type === 'PodScheduled' && c.status === 'False').map((c) => c.message ?? ''),
      (pod.status?.containerStatuses ?? []).map((c) => (c.state?.waiting?.reason === 'ContainerCreating' ? '' : (c.state?.waiting?.reason ?? ''))),
    ]),
};

export const WATCHED: readonly WatchedKind<Watchable>[] = [RUNTIME_WATCH, AICR_JOB_WATCH, AICR_POD_WATCH];

/** The kinds some step of the table wakes on: what the forwarder watches. */
export function watchedBy(table: readonly StepRow[] = STEP_TABLE): WatchedKind<Watchable>[] {
  const woken = new Set(table.flatMap((r) => [...r.wakesOn] as string[]));
  return WATCHED.filter((w) => woken.has(w.wake));
}

/** Each watched kind keeps its own checkpoint ConfigMap, so one kind's progress never moves another's. */
export function checkpointName(w: WatchedKind<Watchable>): string {
  return w.kind === KIND.clusterRuntime ? FORWARDER_CHECKPOINT.name : `${FORWARDER_CHECKPOINT.name}-${w.kind.plural}`;
}

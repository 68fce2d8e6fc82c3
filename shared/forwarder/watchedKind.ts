// What the forwarder needs to know of a kind it watches: which runtime an object concerns and
// which of its changes are work for a step.
import { ANNOTATION, RUNTIME_NAME } from '../api/constants.ts';
import type { Kind, ObjectMeta } from '../kube/kinds.ts';
import type { Selection } from '../kube/port.ts';
import type { StepRow, Wake } from '../steps/table.ts';

export interface RuntimeRef {
  readonly name: string;
  readonly uid: string;
}

export interface Answering {
  readonly asked: number;
  readonly answered: number | undefined;
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
  /**
   * Whether an object first seen in this state is work; by default it is. Objects the control plane
   * just created are not.
   */
  arrivalIsNews?(obj: T): boolean;
  /** Two events with the same fingerprint for one object are one change. */
  fingerprint(obj: T): string;
  /**
   * Whether a move from one fingerprint to another is work; by default every move is. Not asked of
   * a kind with step prints.
   */
  changeIsNews?(before: string, after: string): boolean;
  /**
   * What of the object one step acts on. When given, a change wakes only the steps whose print
   * moved, not every step of the wake; an arrival, a deletion or a relist wakes them all.
   */
  stepPrint?(obj: T, step: StepRow): string;
  /**
   * The generation the object asks for and the last one the control plane answered (its status
   * says so). A change to a new generation skips the coalescing interval when every generation
   * sent before it has been answered: whoever waits for each answer before the next change is
   * not a storm, and holding their change back would only delay the answer.
   */
  answering?(obj: T): Answering;
  /** Tells apart two watches of one kind (in different namespaces), for their checkpoints. */
  readonly id?: string;
  /**
   * The control plane's configuration: its resourceVersion goes on every message the process sends
   * (ConfigurationVersion).
   */
  readonly isConfiguration?: boolean;
  /** Whether a relist wakes the steps of every object listed; by default it does. */
  readonly relistIsNews?: boolean;
}

/** Any object the forwarder can watch. */
export type Watchable = { readonly metadata: ObjectMeta };

/** AICR's Jobs and their Pods name their runtime in an annotation the control plane set. */
export function runtimeFromAnnotation(obj: Watchable): RuntimeRef | undefined {
  const uid = obj.metadata.annotations?.[ANNOTATION.runtimeUID];
  return uid ? { name: RUNTIME_NAME, uid } : undefined;
}

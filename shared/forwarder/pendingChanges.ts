// Changes waiting to be sent, at most one per runtime, and the message each becomes. A change to a
// runtime that already has one waiting folds into it, so a storm of changes costs one message
// per interval, not one each.
import { changeDedupId } from '../queue/dedup.ts';
import type { OutgoingMessage } from '../queue/port.ts';
import { encodeWorkItem, runtimeGroup } from '../queue/workItem.ts';
import type { RuntimeRef } from './watchedKind.ts';

export interface Pending {
  readonly runtime: RuntimeRef;
  /** The steps to wake, in the table's order. */
  readonly steps: readonly string[];
  readonly cause: string;
  readonly resourceVersion: string;
  /** The generation the change asked for, where the kind has one. */
  readonly asked?: number;
  /** When it may be sent: at once, or one interval after the runtime's previous message. */
  readonly due: number;
  /** When the first change it stands for reached the forwarder. */
  readonly received: number;
}

export type Change = Pick<Pending, 'runtime' | 'steps' | 'cause' | 'resourceVersion' | 'asked'>;

export class PendingChanges {
  private readonly byRuntime = new Map<string, Pending>();
  private readonly lastSent = new Map<string, number>();
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  get size(): number {
    return this.byRuntime.size;
  }

  /** Returns whether the change folded into one already waiting for its runtime; `atOnce` skips the interval. */
  add(change: Change, intervalMs: number, atOnce = false): boolean {
    const uid = change.runtime.uid;
    const earlier = this.byRuntime.get(uid);
    const due = atOnce
      ? this.now()
      : (earlier?.due ?? Math.max(this.now(), (this.lastSent.get(uid) ?? -Infinity) + intervalMs));
    const steps = earlier ? [...new Set([...earlier.steps, ...change.steps])] : change.steps;
    this.byRuntime.set(uid, {
      runtime: change.runtime,
      steps,
      cause: change.cause,
      resourceVersion: change.resourceVersion,
      ...(change.asked === undefined ? {} : { asked: change.asked }),
      due,
      received: earlier?.received ?? this.now(),
    });
    return earlier !== undefined;
  }

  /** The changes that may be sent at `now`; every one when `all`. */
  dueAt(now: number, all: boolean): Pending[] {
    return [...this.byRuntime.values()].filter((x) => all || x.due <= now);
  }

  remove(runtimeUID: string): void {
    this.byRuntime.delete(runtimeUID);
  }

  markSent(runtimeUID: string, at: number): void {
    this.lastSent.set(runtimeUID, at);
  }

  /** When the earliest of the waiting changes is due. */
  nextDue(): number {
    return Math.min(...[...this.byRuntime.values()].map((x) => x.due));
  }

  clear(): void {
    this.byRuntime.clear();
  }
}

/** Where a change goes: the runtime's UID, a fleet's cluster, and the configuration's version as last seen. */
export interface Addressed {
  readonly uid: string;
  readonly cluster?: string | undefined;
  readonly configuration?: string | undefined;
}

/** The message that wakes one step for a change; `uid` is the runtime's, read when the object could not name it. */
export function changeMessage(p: Pending, step: string, { uid, cluster, configuration }: Addressed): OutgoingMessage {
  return {
    step,
    group: runtimeGroup(uid),
    dedupId: changeDedupId(uid, step, p.resourceVersion),
    body: encodeWorkItem({
      v: 1,
      step,
      runtime: { name: p.runtime.name, uid },
      cause: p.cause,
      ...(cluster ? { cluster } : {}),
      ...(configuration ? { configuration } : {}),
    }),
  };
}

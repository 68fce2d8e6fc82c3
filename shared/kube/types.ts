import type { Condition } from '../api/condition.ts';

// The shape of the objects the control plane reads, kept to what it needs.
export interface ObjectMeta {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation?: number;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly deletionTimestamp?: string;
}

export interface RuntimeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
  readonly status?: {
    readonly observedGeneration?: number;
    readonly conditions?: readonly Condition[];
    readonly [k: string]: unknown;
  };
}

export interface RuntimeList {
  readonly items: readonly RuntimeObject[];
  readonly resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: RuntimeObject;
}

export interface StatusPatch {
  readonly name: string;
  /** Precondition: the write fails with a conflict if the object changed since it was read. */
  readonly resourceVersion: string;
  readonly fieldManager: string;
  readonly status: Record<string, unknown>;
}

export interface ConfigMapObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    /** Set when updating: the write fails with a conflict if the ConfigMap changed since. */
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly data?: Readonly<Record<string, string>>;
}

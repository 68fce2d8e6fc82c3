// The narrow port through which every step and the forwarder reach Kubernetes: the same few
// verbs on any kind of shared/kube/kinds.ts. One real adapter (client.ts) implements it; unit
// tests may use a small in-memory one.
import type { Kind } from './kinds.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  readonly type: WatchEventType;
  readonly object: T;
}

export interface WatchHandle {
  /** Resolves when the watch ends: server timeout, abort, or error. A `410 Gone` rejects with GoneError. */
  readonly done: Promise<void>;
  stop(): void;
}

export interface Selection {
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** `metadata.name=<name>` lets RBAC limit a list or watch to that one name. */
  readonly fieldSelector?: string;
}

export interface WatchOptions<T> extends Selection {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly onEvent: (event: WatchEvent<T>) => void;
}

export interface ObjectList<T> {
  readonly items: T[];
  readonly resourceVersion: string;
}

export interface ApplyOptions {
  readonly fieldManager: string;
  /** Take over fields another manager owns; only for fields this manager is the one writer of. */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
}

/** An object to write: metadata.name always; metadata.resourceVersion makes the write conditional. */
export interface WritableObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly [k: string]: unknown;
  };
  readonly [k: string]: unknown;
}

export interface KubePort {
  get<T>(kind: Kind<T>, name: string, namespace?: string): Promise<T | undefined>;
  list<T>(kind: Kind<T>, selection?: Selection): Promise<ObjectList<T>>;
  watch<T>(kind: Kind<T>, opts: WatchOptions<T>): Promise<WatchHandle>;
  create<T>(kind: Kind<T>, obj: WritableObject): Promise<T>;
  /** Replaces the object; fails with a conflict if metadata.resourceVersion is stale. */
  update<T>(kind: Kind<T>, obj: WritableObject): Promise<T>;
  /** Server-side apply. */
  apply<T>(kind: Kind<T>, obj: WritableObject, opts: ApplyOptions): Promise<T>;
  /** Server-side apply on the status subresource. */
  applyStatus<T>(kind: Kind<T>, obj: WritableObject, opts: ApplyOptions): Promise<T>;
  /** JSON merge patch. */
  patch<T>(kind: Kind<T>, name: string, namespace: string | undefined, patch: Record<string, unknown>): Promise<T>;
  /** False when the object was already gone. */
  delete(
    kind: Kind<unknown>,
    name: string,
    namespace?: string,
    opts?: { readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' },
  ): Promise<boolean>;
}

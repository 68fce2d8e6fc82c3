// The narrow port through which every step and the forwarder reach Kubernetes. One real
// adapter (client.ts) implements it; unit tests may use a small in-memory one.
import type { ConfigMapObject, RuntimeList, RuntimeObject, StatusPatch, WatchEvent } from './types.ts';

export interface WatchHandle {
  /** Resolves when the watch ends: server timeout, abort, or error. */
  readonly done: Promise<void>;
  stop(): void;
}

export interface WatchOptions {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  readonly onEvent: (event: WatchEvent) => void;
}

export interface KubePort {
  getRuntime(name: string, signal?: AbortSignal): Promise<RuntimeObject | undefined>;
  listRuntimes(signal?: AbortSignal): Promise<RuntimeList>;
  /** Watches ClusterRuntimes; a `410 Gone` rejects `done` with GoneError. */
  watchRuntimes(opts: WatchOptions): Promise<WatchHandle>;
  applyRuntimeStatus(patch: StatusPatch, signal?: AbortSignal): Promise<RuntimeObject>;
  getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined>;
  /** Creates the ConfigMap, or replaces it when metadata.resourceVersion is set. */
  writeConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject>;
}

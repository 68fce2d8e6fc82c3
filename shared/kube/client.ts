// The real Kubernetes adapter, on @kubernetes/client-node.
import { CoreV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, Watch, setHeaderOptions } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, GROUP_VERSION, KINDS } from '../api/constants.ts';
import { GoneError } from '../errors.ts';
import { fromKubeError, isNotFound } from './errors.ts';
import type { KubePort, WatchHandle, WatchOptions } from './port.ts';
import type { ConfigMapObject, RuntimeList, RuntimeObject, StatusPatch, WatchEvent, WatchEventType } from './types.ts';

const RUNTIME = { group: API_GROUP, version: API_VERSION, plural: KINDS.clusterRuntime.plural } as const;
const WATCH_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

export class KubeClient implements KubePort {
  private readonly objects: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly identity: string;

  constructor(private readonly kc: KubeConfig) {
    this.objects = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
    this.identity = kc.getCurrentUser()?.name ?? 'unknown user';
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw fromKubeError(err, this.identity);
    }
  }

  /** Like call, but a 404 is an answer (the object is absent), not an error. */
  private async find<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw fromKubeError(err, this.identity);
    }
  }

  async getRuntime(name: string): Promise<RuntimeObject | undefined> {
    return (await this.find(() => this.objects.getClusterCustomObject({ ...RUNTIME, name }))) as RuntimeObject | undefined;
  }

  async listRuntimes(): Promise<RuntimeList> {
    const list = (await this.call(() => this.objects.listClusterCustomObject({ ...RUNTIME }))) as {
      items: RuntimeObject[];
      metadata: { resourceVersion: string };
    };
    return { items: list.items, resourceVersion: list.metadata.resourceVersion };
  }

  async applyRuntimeStatus(patch: StatusPatch): Promise<RuntimeObject> {
    const body = {
      apiVersion: GROUP_VERSION,
      kind: KINDS.clusterRuntime.kind,
      metadata: { name: patch.name, resourceVersion: patch.resourceVersion },
      status: patch.status,
    };
    return (await this.call(() =>
      this.objects.patchClusterCustomObjectStatus(
        { ...RUNTIME, name: patch.name, body, fieldManager: patch.fieldManager, force: true },
        setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
      ),
    )) as RuntimeObject;
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMapObject | undefined> {
    return (await this.find(() => this.core.readNamespacedConfigMap({ namespace, name }))) as ConfigMapObject | undefined;
  }

  async writeConfigMap(cm: ConfigMapObject): Promise<ConfigMapObject> {
    const { namespace, name } = cm.metadata;
    const body = { apiVersion: 'v1', kind: 'ConfigMap', ...cm };
    return (await this.call(() =>
      cm.metadata.resourceVersion
        ? this.core.replaceNamespacedConfigMap({ namespace, name, body })
        : this.core.createNamespacedConfigMap({ namespace, body }),
    )) as ConfigMapObject;
  }

  async watchRuntimes(opts: WatchOptions): Promise<WatchHandle> {
    const path = `/apis/${API_GROUP}/${API_VERSION}/${KINDS.clusterRuntime.plural}`;
    let settle: (err?: Error) => void = () => undefined;
    let stopped = false;
    const done = new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
    const onEvent = (type: string, obj: unknown): void => {
      if (type === 'ERROR') {
        const code = (obj as { code?: number }).code;
        settle(code === 410 ? new GoneError('watch resource version expired') : fromKubeError(obj, this.identity));
        return;
      }
      if (WATCH_TYPES.has(type)) opts.onEvent({ type: type as WatchEventType, object: obj as RuntimeObject } satisfies WatchEvent);
    };
    const query = { resourceVersion: opts.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: opts.timeoutSeconds };
    const controller = await new Watch(this.kc).watch(path, query, onEvent, (err: unknown) =>
      settle(err && !stopped ? fromKubeError(err, this.identity) : undefined),
    );
    const stop = (): void => {
      stopped = true;
      controller.abort();
      settle();
    };
    return { done, stop };
  }
}

/** Loads a kubeconfig from an explicit file and context; never from the user's current one implicitly. */
export function loadKubeConfig(file: string, context: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(file);
  if (!kc.getContexts().some((c) => c.name === context)) {
    throw new Error(`kubeconfig ${file} has no context named ${context}; pass --context with one of: ${kc.getContexts().map((c) => c.name).join(', ')}`);
  }
  kc.setCurrentContext(context);
  return kc;
}

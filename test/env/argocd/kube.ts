// The stand-in's only channel: the Kubernetes API, as its own ServiceAccount. Status goes into
// the main resource (the Application CRD has no status subresource) by merge patch, under
// Argo CD's field manager name.
import { CoreV1Api, CustomObjectsApi, type KubeConfig, PatchStrategy, type V1Secret, Watch, setHeaderOptions } from '@kubernetes/client-node';
import { ARGOCD_NAMESPACE, type Application, FIELD_MANAGER, GROUP, PLURAL, SECRET_TYPE_LABEL, VERSION } from './types.ts';

export interface AppsApi {
  list(): Promise<Application[]>;
  get(name: string): Promise<Application | undefined>;
  /** A JSON merge patch; returns the object as written. */
  merge(name: string, patch: Record<string, unknown>): Promise<Application>;
  /** A JSON patch (RFC 6902); returns the object as written. */
  jsonPatch(name: string, ops: readonly Record<string, unknown>[]): Promise<Application>;
  /** Argo CD's repository Secrets in its namespace. */
  repoSecrets(): Promise<V1Secret[]>;
  /** Watches Applications until the watch ends; resolves with a function that stops it. */
  watch(onEvent: (type: string, app: Application) => void, onEnd: (err: unknown) => void): Promise<() => void>;
}

const target = { group: GROUP, version: VERSION, namespace: ARGOCD_NAMESPACE, plural: PLURAL };

export const isNotFound = (err: unknown): boolean => (err as { code?: number }).code === 404;

export function appsApi(kc: KubeConfig): AppsApi {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const patch = async (name: string, body: unknown, strategy: PatchStrategy): Promise<Application> =>
    (await custom.patchNamespacedCustomObject({ ...target, name, body, fieldManager: FIELD_MANAGER }, setHeaderOptions('Content-Type', strategy))) as Application;
  return {
    list: async () => ((await custom.listNamespacedCustomObject(target)) as { items: Application[] }).items,
    get: async (name) => {
      try {
        return (await custom.getNamespacedCustomObject({ ...target, name })) as Application;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    merge: (name, body) => patch(name, body, PatchStrategy.MergePatch),
    jsonPatch: (name, ops) => patch(name, ops, PatchStrategy.JsonPatch),
    repoSecrets: async () =>
      (await core.listNamespacedSecret({ namespace: ARGOCD_NAMESPACE, labelSelector: `${SECRET_TYPE_LABEL} in (repository,repo-creds)` })).items,
    watch: async (onEvent, onEnd) => {
      const req = await new Watch(kc).watch(`/apis/${GROUP}/${VERSION}/namespaces/${ARGOCD_NAMESPACE}/${PLURAL}`, {}, onEvent, onEnd);
      return () => req.abort();
    },
  };
}

// The real Kubernetes adapter: the port's verbs on the lean REST client, every failure turned
// into the control plane's error taxonomy, every object read checked against its kind's schema.
import { GoneError } from '../errors.ts';
import { fromKubeError, isNotFound } from './errors.ts';
import { type Kind, collectionPath, objectPath } from './kinds.ts';
import type {
  ApplyOptions,
  KubePort,
  ObjectList,
  Selection,
  WatchEventType,
  WatchHandle,
  WatchOptions,
  WritableObject,
} from './port.ts';
import type { RequestOptions, RestClient } from './rest.ts';

const WATCH_TYPES = new Set<string>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

interface RawWatchEvent {
  readonly type?: string;
  readonly object?: { readonly code?: number };
}

export class KubeClient implements KubePort {
  private readonly rest: RestClient;

  constructor(rest: RestClient) {
    this.rest = rest;
  }

  private async call<T>(fn: () => Promise<unknown>, kind: Kind<T>): Promise<T> {
    try {
      return kind.schema.parse(await fn());
    } catch (err) {
      throw await this.mapped(err);
    }
  }

  private async mapped(err: unknown): Promise<Error> {
    if (err instanceof Error && err.name === 'ZodError') return err;
    const code = (err as { code?: unknown }).code;
    // Only a refused identity is worth naming in full, which on EKS costs a call to STS.
    return fromKubeError(err, code === 401 || code === 403 ? await this.rest.identity() : this.rest.name);
  }

  private body(kind: Kind<unknown>, obj: WritableObject): Record<string, unknown> {
    return { ...obj, apiVersion: kind.apiVersion, kind: kind.kind };
  }

  async get<T>(kind: Kind<T>, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return kind.schema.parse(await this.rest.send('GET', objectPath(kind, name, namespace)));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw await this.mapped(err);
    }
  }

  async list<T>(kind: Kind<T>, selection: Selection = {}): Promise<ObjectList<T>> {
    try {
      const raw = (await this.rest.send('GET', collectionPath(kind, selection.namespace), {
        query: { labelSelector: selection.labelSelector, fieldSelector: selection.fieldSelector },
      })) as {
        items?: unknown[];
        metadata?: { resourceVersion?: string };
      };
      return {
        items: (raw.items ?? []).map((i) => kind.schema.parse(i)),
        resourceVersion: raw.metadata?.resourceVersion ?? '',
      };
    } catch (err) {
      throw await this.mapped(err);
    }
  }

  create<T>(kind: Kind<T>, obj: WritableObject): Promise<T> {
    return this.call(
      () => this.rest.send('POST', collectionPath(kind, obj.metadata.namespace), { body: this.body(kind, obj) }),
      kind,
    );
  }

  update<T>(kind: Kind<T>, obj: WritableObject): Promise<T> {
    return this.call(
      () =>
        this.rest.send('PUT', objectPath(kind, obj.metadata.name, obj.metadata.namespace), {
          body: this.body(kind, obj),
        }),
      kind,
    );
  }

  private applyAt<T>(kind: Kind<T>, path: string, obj: WritableObject, opts: ApplyOptions): Promise<T> {
    const req: RequestOptions = {
      query: { fieldManager: opts.fieldManager, force: opts.force ? true : undefined },
      body: this.body(kind, obj),
      contentType: APPLY,
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    return this.call(() => this.rest.send('PATCH', path, req), kind);
  }

  apply<T>(kind: Kind<T>, obj: WritableObject, opts: ApplyOptions): Promise<T> {
    return this.applyAt(kind, objectPath(kind, obj.metadata.name, obj.metadata.namespace), obj, opts);
  }

  applyStatus<T>(kind: Kind<T>, obj: WritableObject, opts: ApplyOptions): Promise<T> {
    return this.applyAt(kind, `${objectPath(kind, obj.metadata.name, obj.metadata.namespace)}/status`, obj, opts);
  }

  patch<T>(kind: Kind<T>, name: string, namespace: string | undefined, patch: Record<string, unknown>): Promise<T> {
    return this.call(
      () => this.rest.send('PATCH', objectPath(kind, name, namespace), { body: patch, contentType: MERGE }),
      kind,
    );
  }

  async delete(
    kind: Kind<unknown>,
    name: string,
    namespace?: string,
    opts: { readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan' } = {},
  ): Promise<boolean> {
    try {
      await this.rest.send('DELETE', objectPath(kind, name, namespace), {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', ...opts },
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw await this.mapped(err);
    }
  }

  watch<T>(kind: Kind<T>, opts: WatchOptions<T>): Promise<WatchHandle> {
    const controller = new AbortController();
    let failure: Error | undefined;
    const onLine = (line: unknown): void => {
      const ev = line as RawWatchEvent;
      if (ev.type === 'ERROR') {
        const code = ev.object?.code;
        failure =
          code === 410 ? new GoneError('watch resource version expired') : fromKubeError({ code, body: ev.object });
        controller.abort();
        return;
      }
      if (!ev.type || !WATCH_TYPES.has(ev.type)) return;
      // A bookmark carries only a resourceVersion; everything else is a whole object.
      const object = ev.type === 'BOOKMARK' ? (ev.object as T) : kind.schema.parse(ev.object);
      opts.onEvent({ type: ev.type as WatchEventType, object });
    };
    const query = {
      watch: true,
      resourceVersion: opts.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: opts.timeoutSeconds,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
    };
    const done = (async (): Promise<void> => {
      try {
        await this.rest.stream(collectionPath(kind, opts.namespace), { query, signal: controller.signal }, onLine);
      } catch (err) {
        if (!controller.signal.aborted) throw await this.mapped(err);
      }
      if (failure) throw failure;
    })();
    return Promise.resolve({ done, stop: () => controller.abort() });
  }
}

// An in-memory KubePort for unit tests of a step's control flow: objects by kind, namespace and
// name, label selectors of `k=v`, `k!=v` and `k` terms, and every request counted, so a test can
// say how often a look read an object. Merge patches merge metadata and spec one level deep.
import type { Kind } from '../../shared/kube/kinds.ts';
import type { KubePort, ObjectList, Selection, WritableObject } from '../../shared/kube/port.ts';

type Obj = WritableObject & {
  metadata: WritableObject['metadata'] & { labels?: Record<string, string>; resourceVersion?: string };
};

export interface MemoryKube extends KubePort {
  readonly store: Map<string, Obj>;
  /** Requests by `verb kind/namespace/name` (the name empty for a list). */
  readonly requests: Map<string, number>;
  /** How many times `verb` was sent for `kind`, by name when given. */
  count(verb: string, kind: Kind<unknown>, name?: string): number;
  put(kind: Kind<unknown>, obj: Record<string, unknown>): void;
}

function matches(o: Obj, selector = ''): boolean {
  return selector
    .split(',')
    .filter(Boolean)
    .every((term) => {
      const [k = '', v] = term.split(/!?=/);
      const actual = o.metadata.labels?.[k];
      if (v === undefined) return actual !== undefined;
      return term.includes('!=') ? actual !== v : actual === v;
    });
}

export function memoryKube(): MemoryKube {
  const store = new Map<string, Obj>();
  const requests = new Map<string, number>();
  let version = 1;
  const key = (k: Kind<unknown>, ns: string | undefined, name: string): string => `${k.plural}/${ns ?? ''}/${name}`;
  const note = (verb: string, k: Kind<unknown>, ns: string | undefined, name: string): void => {
    const at = `${verb} ${key(k, ns, name)}`;
    requests.set(at, (requests.get(at) ?? 0) + 1);
  };
  const save = (k: Kind<unknown>, obj: Obj): Obj => {
    const saved = structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++version) } });
    store.set(key(k, obj.metadata.namespace, obj.metadata.name), saved);
    return saved;
  };
  const existing = (k: Kind<unknown>, ns: string | undefined, name: string): Obj => {
    const o = store.get(key(k, ns, name));
    if (!o) throw new Error(`${key(k, ns, name)} not found`);
    return o;
  };
  const unused = (): Promise<never> => Promise.reject(new Error('not used by these tests'));
  return {
    store,
    requests,
    count: (verb, k, name) =>
      [...requests.entries()]
        .filter(([at]) => at.startsWith(`${verb} ${k.plural}/`) && (name === undefined || at.endsWith(`/${name}`)))
        .reduce((n, [, c]) => n + c, 0),
    put: (k, obj) => void save(k, obj as Obj),
    get: <T>(k: Kind<T>, name: string, ns?: string) => {
      note('get', k, ns, name);
      return Promise.resolve(structuredClone(store.get(key(k, ns, name))) as T | undefined);
    },
    list: <T>(k: Kind<T>, sel?: Selection) => {
      note('list', k, sel?.namespace, '');
      const prefix = sel?.namespace === undefined ? `${k.plural}/` : `${k.plural}/${sel.namespace}/`;
      const items = [...store.entries()].filter(([kk, o]) => kk.startsWith(prefix) && matches(o, sel?.labelSelector));
      return Promise.resolve({
        items: items.map(([, o]) => structuredClone(o) as T),
        resourceVersion: String(version),
      } satisfies ObjectList<T>);
    },
    create: <T>(k: Kind<T>, obj: WritableObject) => {
      note('create', k, obj.metadata.namespace, obj.metadata.name);
      return Promise.resolve(
        save(k, {
          ...(obj as Obj),
          metadata: {
            ...obj.metadata,
            uid: `uid-${obj.metadata.name}`,
            creationTimestamp: '2026-12-02T10:00:00Z',
            generation: 1,
          },
        }) as T,
      );
    },
    patch: <T>(k: Kind<T>, name: string, ns: string | undefined, p: Record<string, unknown>) => {
      note('patch', k, ns, name);
      const o = existing(k, ns, name);
      const meta = (p.metadata ?? {}) as Record<string, unknown>;
      return Promise.resolve(
        save(k, {
          ...o,
          ...p,
          metadata: { ...o.metadata, ...meta } as Obj['metadata'],
          ...(p.spec ? { spec: { ...(o.spec as object), ...(p.spec as object) } } : {}),
        }) as T,
      );
    },
    applyStatus: <T>(k: Kind<T>, obj: WritableObject) => {
      note('applyStatus', k, obj.metadata.namespace, obj.metadata.name);
      const o = existing(k, obj.metadata.namespace, obj.metadata.name);
      return Promise.resolve(save(k, { ...o, status: obj.status }) as T);
    },
    apply: <T>(k: Kind<T>, obj: WritableObject) => {
      note('apply', k, obj.metadata.namespace, obj.metadata.name);
      return Promise.resolve(save(k, obj as Obj) as T);
    },
    delete: (k: Kind<unknown>, name: string, ns?: string) => {
      note('delete', k, ns, name);
      return Promise.resolve(store.delete(key(k, ns, name)));
    },
    watch: unused,
    update: unused,
  };
}

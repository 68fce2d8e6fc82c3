// A Kubernetes port with just enough for a step that fails before it writes and for the status a
// stall writes: the runtime the dispatcher tests use, each status apply recorded in order.
import type { KubePort, WritableObject } from '../../shared/kube/port.ts';
import type { RuntimeObject } from '../../shared/kube/kinds.ts';
import { dispatchedRuntime as runtime } from '../../harness/steps.ts';

export type Applied = {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
};

/** The runtime as a list of status applies: each apply's conditions, in order. */
export function recordingKube(): { kube: KubePort; applies: Applied[][] } {
  const current = structuredClone(runtime) as RuntimeObject;
  const applies: Applied[][] = [];
  const unused = (): Promise<never> => Promise.reject(new Error('not used'));
  const kube: KubePort = {
    get: <T>() => Promise.resolve(structuredClone(current) as T),
    applyStatus: <T>(_: unknown, obj: WritableObject) => {
      const conditions = ((obj['status'] as { conditions?: Applied[] }).conditions ?? []).map((c) => ({ ...c }));
      applies.push(conditions);
      const kept = (current.status?.conditions ?? []).filter((c) => !conditions.some((n) => n.type === c.type));
      current.status = { ...current.status, conditions: [...kept, ...conditions] as never };
      current.metadata.resourceVersion = String(Number(current.metadata.resourceVersion) + 1);
      return Promise.resolve(structuredClone(current) as T);
    },
    list: unused,
    watch: unused,
    create: unused,
    update: unused,
    apply: unused,
    patch: unused,
    delete: unused,
  };
  return { kube, applies };
}

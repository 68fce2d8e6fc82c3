// A KubePort for forwarder unit tests: its lists are empty at resourceVersion 1, its watch is the
// test's, and every other request fails, since a forwarder must not make one.
import type { KubePort } from '../../shared/kube/port.ts';

export function watchOnlyKube(watch: KubePort['watch']): KubePort {
  const unused = (): Promise<never> => Promise.reject(new Error('not used'));
  return {
    list: <T>() => Promise.resolve({ items: [] as T[], resourceVersion: '1' }),
    watch,
    get: unused,
    create: unused,
    update: unused,
    apply: unused,
    applyStatus: unused,
    patch: unused,
    delete: unused,
  };
}

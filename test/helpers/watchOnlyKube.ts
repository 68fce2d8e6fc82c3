// A KubePort for forwarder unit tests: its lists are empty at resourceVersion 1, its watch is the
// test's, and every other request fails, since a forwarder must not make one.
import type { KubePort, WatchOptions } from '../../shared/kube/port.ts';

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

export interface ReplayedEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: { readonly metadata: { readonly resourceVersion: string } };
}

/**
 * A port whose first watch replays the events, `perTick` at a time, then ends; later watches idle
 * until stopped. `get` answers the forwarder's look-up of the one runtime, where a test needs one.
 */
export function replayKube(
  events: readonly ReplayedEvent[],
  { get, perTick = 1 }: { readonly get?: KubePort['get']; readonly perTick?: number } = {},
): KubePort {
  let watched = false;
  const kube = watchOnlyKube(<T>(_: unknown, opts: WatchOptions<T>) => {
    if (watched) {
      let end: () => void = () => undefined;
      const idle = new Promise<void>((resolve) => (end = resolve));
      return Promise.resolve({ done: idle, stop: () => end() });
    }
    watched = true;
    const done = (async () => {
      for (let i = 0; i < events.length; i += perTick) {
        for (const e of events.slice(i, i + perTick)) opts.onEvent({ type: e.type, object: e.object as T });
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    return Promise.resolve({ done, stop: () => undefined });
  });
  return get ? { ...kube, get } : kube;
}

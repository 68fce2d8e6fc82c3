// The bench's own view of Argo CD's Applications, kept by one watch, so waiting for a sync costs
// no polling interval: each event re-checks what is waited for.
import { type KubeConfig, Watch } from '@kubernetes/client-node';
import { NAMESPACES } from '../shared/api/constants.ts';
import type { GenericObject } from '../shared/kube/kinds.ts';

export class ApplicationWatch {
  readonly latest = new Map<string, GenericObject>();
  private readonly waiters = new Set<() => void>();
  private abort: (() => void) | undefined;

  private readonly onEvent: ((app: GenericObject, at: number) => void) | undefined;

  /** `onEvent` sees every Application as it arrives, with the moment it did. */
  constructor(onEvent?: (app: GenericObject, at: number) => void) {
    this.onEvent = onEvent;
  }

  async start(kc: KubeConfig): Promise<void> {
    const path = `/apis/argoproj.io/v1alpha1/namespaces/${NAMESPACES.argocd}/applications`;
    const ctl = await new Watch(kc).watch(
      path,
      {},
      (type, obj: GenericObject) => {
        if (type === 'DELETED') this.latest.delete(obj.metadata.name);
        else {
          this.latest.set(obj.metadata.name, obj);
          this.onEvent?.(obj, performance.now());
        }
        for (const w of [...this.waiters]) w();
      },
      () => undefined,
    );
    this.abort = () => ctl.abort();
  }

  stop(): void {
    this.abort?.();
  }

  /** Resolves once `check` holds, checked now and on every event. */
  until(what: string, check: () => boolean, timeoutMs = 120_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(test);
      };
      const test = (): void => {
        if (!check()) return;
        done();
        resolve();
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(test);
      test();
    });
  }
}

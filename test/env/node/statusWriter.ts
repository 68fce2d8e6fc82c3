// Writes a Pod's status through the status subresource, one write at a time, always computed
// from the latest Pod so the scheduler's and the API server's fields are kept.
import type { CoreV1Api, V1Pod, V1PodStatus } from '@kubernetes/client-node';

const code = (err: unknown): number | undefined => (err as { code?: number }).code;

export class StatusWriter {
  private readonly core: CoreV1Api;
  private readonly pod: V1Pod;
  private readonly compute: (latest: V1Pod) => V1PodStatus;
  private chain: Promise<void> = Promise.resolve();
  private gone = false;

  constructor(core: CoreV1Api, pod: V1Pod, compute: (latest: V1Pod) => V1PodStatus) {
    this.core = core;
    this.pod = pod;
    this.compute = compute;
  }

  /** Queues a write; resolves when it (and every earlier one) is done. */
  write(): Promise<void> {
    this.chain = this.chain.then(() => this.writeNow());
    return this.chain;
  }

  private async writeNow(): Promise<void> {
    const { name = '', namespace = '' } = this.pod.metadata ?? {};
    for (let attempt = 0; attempt < 5 && !this.gone; attempt++) {
      try {
        const latest = await this.core.readNamespacedPod({ name, namespace });
        this.gone = latest.metadata?.uid !== this.pod.metadata?.uid;
        if (this.gone) return;
        latest.status = this.compute(latest);
        await this.core.replaceNamespacedPodStatus({ name, namespace, body: latest });
        return;
      } catch (err) {
        if (code(err) === 404) return void (this.gone = true);
        if (code(err) !== 409) throw err;
      }
    }
  }
}

// Local mode: the forwarder, the embedded queue and the steps in one process. The same step
// code runs behind SQS and Lambda in AWS.
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import { EmbeddedQueue, type EmbeddedQueueOptions } from '../queue/embedded.ts';
import { handleMessage } from '../steps/dispatch.ts';
import { type Checkpoint, Forwarder, MemoryCheckpoint } from '../forwarder/forwarder.ts';

export interface LocalControlPlane {
  readonly queue: EmbeddedQueue;
  readonly forwarder: Forwarder;
  /** Resolves when the forwarder stops. */
  readonly running: Promise<void>;
  stop(): void;
}

export interface LocalOptions {
  readonly kube: KubePort;
  readonly log: Logger;
  readonly checkpoint?: Checkpoint;
  readonly queue?: EmbeddedQueueOptions;
  readonly watchTimeoutSeconds?: number;
  readonly now?: () => Date;
}

export function startLocalControlPlane(opts: LocalOptions): LocalControlPlane {
  const queue = new EmbeddedQueue(opts.queue);
  const now = opts.now ?? ((): Date => new Date());
  queue.consume(async (msg) => {
    await handleMessage(msg, { kube: opts.kube, log: opts.log, now, producer: queue });
  });
  const forwarder = new Forwarder({
    kube: opts.kube,
    producer: queue,
    log: opts.log.child({ step: 'forwarder' }),
    checkpoint: opts.checkpoint ?? new MemoryCheckpoint(),
    ...(opts.watchTimeoutSeconds === undefined ? {} : { watchTimeoutSeconds: opts.watchTimeoutSeconds }),
  });
  const running = forwarder.run();
  return {
    queue,
    forwarder,
    running,
    stop: () => {
      forwarder.stop();
      queue.stop();
    },
  };
}

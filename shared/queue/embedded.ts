// In-process queue with the semantics of the AWS path: FIFO per group within each step's queue,
// one in-flight message per group and queue, deduplication by ID within a window, delayed
// delivery, redelivery after a failure, and a dead-letter list after maxReceives failures. A
// failing group never blocks another group.
import { MAX_RECEIVES } from './deliveryPolicy.ts';
import type {
  DeadLetter,
  MessageHandler,
  OutgoingMessage,
  QueueProducer,
  ReceivedMessage,
  SendResult,
} from './port.ts';

export interface EmbeddedQueueOptions {
  readonly maxReceives?: number;
  readonly redeliveryDelayMs?: number;
  readonly dedupWindowMs?: number;
  readonly concurrency?: number;
  readonly now?: () => number;
  /**
   * The queue a step's messages go to. On AWS each step has its own FIFO queue, so one runtime's
   * group is ordered per queue and its steps run side by side; by default each step is its own queue.
   */
  readonly queueOf?: (step: string) => string;
}

interface Entry {
  msg: ReceivedMessage;
}

export class EmbeddedQueue implements QueueProducer {
  readonly deadLetters: ReceivedMessage[] = [];
  private readonly groups = new Map<string, Entry[]>();
  private readonly busy = new Set<string>();
  private readonly seen = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private handler: MessageHandler | undefined;
  private running = 0;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private seq = 0;
  private idleWaiters: { readonly timers: boolean; readonly resolve: () => void }[] = [];
  private readonly opts: Required<EmbeddedQueueOptions>;

  constructor(opts: EmbeddedQueueOptions = {}) {
    this.opts = {
      maxReceives: opts.maxReceives ?? MAX_RECEIVES,
      redeliveryDelayMs: opts.redeliveryDelayMs ?? 1000,
      dedupWindowMs: opts.dedupWindowMs ?? 300_000,
      concurrency: opts.concurrency ?? 4,
      now: opts.now ?? Date.now,
      queueOf: opts.queueOf ?? ((step) => step),
    };
  }

  send(out: OutgoingMessage): Promise<SendResult> {
    const now = this.opts.now();
    for (const [id, expiry] of this.seen) if (expiry <= now) this.seen.delete(id);
    if (this.seen.has(out.dedupId)) return Promise.resolve({ deduplicated: true });
    this.seen.set(out.dedupId, now + this.opts.dedupWindowMs);
    const msg: ReceivedMessage = {
      id: `m-${++this.seq}`,
      group: out.group,
      dedupId: out.dedupId,
      body: out.body,
      receiveCount: 0,
      sentAt: now,
    };
    // A group is exclusive within its queue, as an SQS FIFO message group is.
    const lane = `${this.opts.queueOf(out.step)}/${out.group}`;
    this.later(out.delayMs ?? 0, () => this.enqueue(lane, msg));
    return Promise.resolve({ deduplicated: false });
  }

  deadLetter(msg: DeadLetter): Promise<void> {
    this.deadLetters.push({
      id: `m-${++this.seq}`,
      group: msg.group,
      dedupId: msg.dedupId,
      body: msg.body,
      receiveCount: 0,
      sentAt: this.opts.now(),
    });
    return Promise.resolve();
  }

  /** Starts delivering to the handler. */
  consume(handler: MessageHandler): void {
    this.handler = handler;
    this.pump();
  }

  /**
   * Resolves once nothing is queued, in flight or waiting on a timer. With `timers: false`,
   * delayed messages do not count: steps that look again every few minutes, or every few hours,
   * would otherwise keep the queue from ever being idle.
   */
  idle(opts: { readonly timers?: boolean } = {}): Promise<void> {
    const timers = opts.timers ?? true;
    if (this.isIdle(timers)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push({ timers, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.handler = undefined;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /**
   * Resolves once the handlers running at stop() have returned: a stopped control plane must not
   * go on writing after its owner believes it gone.
   */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  depth(): number {
    let n = 0;
    for (const list of this.groups.values()) n += list.length;
    return n;
  }

  private later(ms: number, fn: () => void): void {
    // A run still in flight at stop() may ask for a recheck; a timer armed then would keep the process alive.
    if (this.stopped) return;
    if (ms <= 0) return fn();
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private enqueue(lane: string, msg: ReceivedMessage): void {
    const list = this.groups.get(lane) ?? [];
    list.push({ msg });
    this.groups.set(lane, list);
    this.pump();
  }

  private pump(): void {
    if (!this.handler) return;
    for (const [group, list] of this.groups) {
      if (this.running >= this.opts.concurrency) return;
      const head = list[0];
      if (!head || this.busy.has(group)) continue;
      this.busy.add(group);
      this.running++;
      head.msg = { ...head.msg, receiveCount: head.msg.receiveCount + 1 };
      const delivery = this.deliver(group, list, head);
      this.inFlight.add(delivery);
      void delivery.finally(() => this.inFlight.delete(delivery));
    }
    this.notifyIdle();
  }

  private async deliver(group: string, list: Entry[], head: Entry): Promise<void> {
    let failed = false;
    try {
      await this.handler?.(head.msg);
    } catch {
      failed = true;
    }
    this.running--;
    if (!failed || head.msg.receiveCount >= this.opts.maxReceives) {
      if (failed) this.deadLetters.push(head.msg);
      list.shift();
      if (list.length === 0) this.groups.delete(group);
      this.busy.delete(group);
      this.pump();
      return;
    }
    // The group stays locked until redelivery, as an SQS FIFO group does while its head is invisible.
    this.later(this.opts.redeliveryDelayMs, () => {
      this.busy.delete(group);
      this.pump();
    });
    this.pump();
  }

  private isIdle(timers: boolean): boolean {
    return this.running === 0 && this.groups.size === 0 && (!timers || this.timers.size === 0);
  }

  private notifyIdle(): void {
    const ready = this.idleWaiters.filter((w) => this.isIdle(w.timers));
    if (ready.length === 0) return;
    this.idleWaiters = this.idleWaiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}

// Local mode: the forwarder, the embedded queue and every step in one process. The same step
// code runs behind SQS and Lambda in AWS.
import { countStalls } from '../aws/windowClusters.ts';
import { StallReporter } from '../observability/stallCounts.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import { EmbeddedQueue, type EmbeddedQueueOptions } from '../queue/embedded.ts';
import type { QueueProducer } from '../queue/port.ts';
import { createDispatcher } from '../steps/dispatch.ts';
import { RUNNERS } from '../steps/runners.ts';
import { STEP_TABLE, type StepRow } from '../steps/table.ts';
import type { StepRunner } from '../look/contract.ts';
import { DEFAULT_TIMINGS, type Timings } from '../timings.ts';
import { type Checkpoint, MemoryCheckpoint } from '../forwarder/checkpoint.ts';
import { COALESCE_MS, Forwarder } from '../forwarder/forwarder.ts';
import { RUNTIME_WATCH, watchedBy } from '../forwarder/watched.ts';
import { GoneRuntimes } from '../forwarder/goneRuntimes.ts';
import { ConfigurationVersion } from '../forwarder/configurationWatch.ts';
import { errorFields } from '../classify.ts';
import { type SweepDeps, sweepLeftovers } from '../sweeper/leftovers.ts';

export interface LocalControlPlane {
  readonly queue: EmbeddedQueue;
  /** The runtime's forwarder; `forwarders` holds it and one per other watched kind. */
  readonly forwarder: Forwarder;
  readonly forwarders: readonly Forwarder[];
  /** Resolves when the forwarders stop and the steps they woke have returned. */
  readonly running: Promise<void>;
  stop(): void;
}

export interface LocalOptions {
  /** The forwarder's access, and every step's unless `kubeFor` gives a step its own. */
  readonly kube: KubePort;
  readonly kubeFor?: (step: string) => KubePort;
  readonly log: Logger;
  readonly checkpoint?: Checkpoint;
  readonly queue?: EmbeddedQueueOptions;
  readonly watchTimeoutSeconds?: number;
  readonly now?: () => Date;
  readonly timings?: Timings;
  /** The steps to run; the step table and every runner unless a test swaps them. */
  readonly table?: readonly StepRow[];
  readonly runners?: Readonly<Record<string, StepRunner>>;
  readonly coalesceMs?: number;
  /** How often the stall counts are sent, as the forwarder does once a window on AWS; a minute unless set. */
  readonly stallCountEveryMs?: number;
  /**
   * The fault harness's only hook (test/helpers/faults/): whether to handle a message once more
   * right after it was handled, as SQS's at-least-once delivery may. Never set by local mode.
   */
  readonly handleAgain?: () => boolean;
  /**
   * The fault harness's hook for late messages: milliseconds to hold a sent message back, so
   * messages sent after it may be handled first, as messages from different senders can be on
   * SQS. Never set by local mode.
   */
  readonly holdBackMs?: () => number;
}

/** The queue as senders see it: each message held back by the fault harness's hook when one is set. */
export function senderOf(queue: QueueProducer, holdBackMs: LocalOptions['holdBackMs']): QueueProducer {
  if (!holdBackMs) return queue;
  return {
    send: (msg) => {
      const extra = holdBackMs();
      return queue.send(extra > 0 ? { ...msg, delayMs: (msg.delayMs ?? 0) + extra } : msg);
    },
    deadLetter: (msg) => queue.deadLetter(msg),
  };
}

/** Local mode counts stalled runtimes on a timer, as each forwarder window does on AWS. */
function startStallCounter(kube: LocalOptions['kube'], log: LocalOptions['log'], everyMs: number): NodeJS.Timeout {
  const reporter = new StallReporter(log);
  const timer = setInterval(() => {
    countStalls([{ kube }], reporter, log).catch((err: unknown) =>
      log.warn('stall count failed; the next one retries', errorFields(err)),
    );
  }, everyMs);
  timer.unref();
  return timer;
}

/** Local mode sweeps on a timer, as often as the stale period allows something to become stale. */
function startSweeper(deps: SweepDeps, timings: Timings): NodeJS.Timeout {
  const settings = { staleAfterMs: timings.sweepStaleAfterMs, graceMs: timings.sweepGraceMs };
  const timer = setInterval(
    () => {
      sweepLeftovers(deps, settings).catch((err: unknown) =>
        deps.log.warn('sweep failed; the next one retries', errorFields(err)),
      );
    },
    Math.max(1_000, Math.min(timings.sweepStaleAfterMs, timings.sweepGraceMs) / 2),
  );
  timer.unref();
  return timer;
}

/** The steps consume the queue, each message handled by the step it names. */
function consumeSteps(
  queue: EmbeddedQueue,
  opts: LocalOptions,
  run: {
    readonly table: readonly StepRow[];
    readonly now: () => Date;
    readonly timings: Timings;
    readonly producer: QueueProducer;
  },
): void {
  const { table, now, timings, producer } = run;
  const dispatch = createDispatcher(opts.runners ?? RUNNERS, table);
  const deps = {
    kube: opts.kube,
    log: opts.log,
    now,
    timings,
    producer,
    ...(opts.kubeFor ? { kubeFor: opts.kubeFor } : {}),
  };
  queue.consume(async (msg) => {
    await dispatch(msg, deps);
    if (opts.handleAgain?.()) await dispatch(msg, deps);
  });
}

/** One forwarder per kind the table's steps watch; only the runtime's own keeps the caller's checkpoint. */
function forwardersOf(opts: LocalOptions, table: readonly StepRow[], producer: QueueProducer): Forwarder[] {
  const gone = new GoneRuntimes();
  const configuration = new ConfigurationVersion();
  return watchedBy(table).map(
    (w) =>
      new Forwarder(
        {
          kube: opts.kube,
          producer,
          log: opts.log.child({ step: 'forwarder', watched: w.kind.plural }),
          checkpoint: w === RUNTIME_WATCH ? (opts.checkpoint ?? new MemoryCheckpoint()) : new MemoryCheckpoint(),
          table,
          coalesceMs: opts.coalesceMs ?? COALESCE_MS,
          gone,
          configuration,
          ...(opts.watchTimeoutSeconds === undefined ? {} : { watchTimeoutSeconds: opts.watchTimeoutSeconds }),
        },
        w,
      ),
  );
}

export function startLocalControlPlane(opts: LocalOptions): LocalControlPlane {
  const table = opts.table ?? STEP_TABLE;
  const queue = new EmbeddedQueue({
    queueOf: (step) => table.find((r) => r.name === step)?.queue ?? step,
    ...opts.queue,
  });
  const now = opts.now ?? ((): Date => new Date());
  const timings = opts.timings ?? DEFAULT_TIMINGS;
  const producer = senderOf(queue, opts.holdBackMs);
  consumeSteps(queue, opts, { table, now, timings, producer });
  const forwarders = forwardersOf(opts, table, producer);
  const forwarder = forwarders.find((f) => f.watches === RUNTIME_WATCH) ?? (forwarders[0] as Forwarder);
  const sweeper = startSweeper(
    { kube: opts.kube, log: opts.log.child({ step: 'sweeper' }), now, startedAt: now() },
    timings,
  );
  const timers = [
    sweeper,
    startStallCounter(opts.kube, opts.log.child({ step: 'forwarder' }), opts.stallCountEveryMs ?? 60_000),
  ];
  const running = Promise.all(forwarders.map((f) => f.run())).then(async () => {
    timers.forEach((t) => clearInterval(t));
    await queue.settled();
  });
  return {
    queue,
    forwarder,
    forwarders,
    running,
    stop: () => {
      for (const f of forwarders) f.stop();
      for (const t of timers) clearInterval(t);
      queue.stop();
    },
  };
}

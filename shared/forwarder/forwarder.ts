// Forwards ClusterRuntime watch events to the queue as keys. It resumes from the last
// resourceVersion it saw (bookmarks keep that fresh), relists and enqueues every runtime on
// `410 Gone`, skips changes no step cares about (status-only writes) and says why, and never
// drops an event silently: a failed send forces a relist.
import { GoneError, ThrottledError } from '../errors.ts';
import { errorFields } from '../classify.ts';
import { changeDedupId } from '../queue/dedup.ts';
import { STEP_TABLE, type StepRow, WAKE } from '../steps/table.ts';
import { DEFAULT_TIMINGS, backoffDelay } from '../timings.ts';
import type { KubePort, WatchEvent } from '../kube/port.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import type { Logger } from '../observability/log.ts';
import type { QueueProducer } from '../queue/port.ts';
import { encodeWorkItem, runtimeGroup } from '../queue/workItem.ts';

export interface Checkpoint {
  load(): Promise<string | undefined>;
  save(resourceVersion: string): Promise<void>;
}

export class MemoryCheckpoint implements Checkpoint {
  constructor(private rv?: string) {}
  load(): Promise<string | undefined> {
    return Promise.resolve(this.rv);
  }
  save(resourceVersion: string): Promise<void> {
    this.rv = resourceVersion;
    return Promise.resolve();
  }
}

export interface ForwarderStats {
  relists: number;
  enqueued: number;
  skipped: number;
  watches: number;
}

export interface ForwarderOptions {
  readonly kube: KubePort;
  readonly producer: QueueProducer;
  readonly log: Logger;
  readonly checkpoint: Checkpoint;
  readonly watchTimeoutSeconds?: number;
  /** The steps a runtime change wakes come from this table. */
  readonly table?: readonly StepRow[];
}

/** What about a runtime makes work: its spec (generation), annotations, and deletion. */
function fingerprint(obj: RuntimeObject): string {
  const m = obj.metadata;
  return JSON.stringify([m.generation ?? 0, m.annotations ?? {}, m.deletionTimestamp ?? null]);
}

export class Forwarder {
  readonly stats: ForwarderStats = { relists: 0, enqueued: 0, skipped: 0, watches: 0 };
  private readonly seen = new Map<string, string>();
  private rv: string | undefined;
  private stopped = false;
  private stopWatch: (() => void) | undefined;
  private sendFailed = false;

  constructor(private readonly opts: ForwarderOptions) {}

  /** Runs until stop(); each pass watches from the last resourceVersion. */
  async run(): Promise<void> {
    this.rv = await this.opts.checkpoint.load();
    let failures = 0;
    while (!this.stopped) {
      try {
        if (this.rv === undefined || this.sendFailed) await this.relist();
        else await this.watchOnce(this.rv);
        failures = 0;
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof GoneError) {
          this.opts.log.info('watch history expired; relisting', { resourceVersion: this.rv });
          this.rv = undefined;
          continue;
        }
        if (err instanceof ThrottledError) {
          // Expected right after a CRD is installed: its watch cache answers 429 until it has
          // loaded. Not a failure worth a warning; wait as the server asked.
          this.opts.log.debug('api server asked to wait; trying again shortly', { retryAfterMs: err.retryAfterMs });
          await sleep(Math.min(err.retryAfterMs, 5000));
          continue;
        }
        failures++;
        // Like client-go's reflector, start over with a list: a server that cannot continue
        // a watch (etcd history without the previous value, say) would fail the same way again.
        this.rv = undefined;
        this.opts.log.warn('watch failed; relisting after a pause', { attempt: failures, ...errorFields(err) });
        await sleep(Math.min(backoffDelay(failures, DEFAULT_TIMINGS, () => 0) / 10, 5000));
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
  }

  private async relist(): Promise<void> {
    const list = await this.opts.kube.list(KIND.clusterRuntime);
    this.stats.relists++;
    this.sendFailed = false;
    this.seen.clear();
    for (const obj of list.items) await this.enqueue(obj, 'relist');
    if (this.sendFailed) return;
    await this.advance(list.resourceVersion);
  }

  private async watchOnce(rv: string): Promise<void> {
    this.stats.watches++;
    let chain = Promise.resolve();
    const handle = await this.opts.kube.watch(KIND.clusterRuntime, {
      resourceVersion: rv,
      timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300,
      // Events are handled strictly in order, so the checkpoint never passes an unsent event.
      onEvent: (ev) => {
        chain = chain.then(() => this.onEvent(ev));
      },
    });
    this.stopWatch = handle.stop;
    try {
      await handle.done;
    } finally {
      this.stopWatch = undefined;
      await chain;
    }
  }

  private async onEvent(ev: WatchEvent<RuntimeObject>): Promise<void> {
    if (this.sendFailed) return;
    const obj = ev.object;
    if (ev.type !== 'BOOKMARK') {
      const print = fingerprint(obj);
      if (ev.type !== 'DELETED' && this.seen.get(obj.metadata.uid) === print) {
        this.stats.skipped++;
        this.opts.log.debug('event skipped: only status changed', { runtimeUID: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion });
      } else {
        await this.enqueue(obj, ev.type);
      }
      if (ev.type === 'DELETED') this.seen.delete(obj.metadata.uid);
    }
    if (!this.sendFailed) await this.advance(obj.metadata.resourceVersion);
  }

  private async enqueue(obj: RuntimeObject, cause: string): Promise<void> {
    const { uid, name, resourceVersion } = obj.metadata;
    const steps = (this.opts.table ?? STEP_TABLE).filter((r) => (r.wakesOn as readonly string[]).includes(WAKE.runtimeChange));
    try {
      for (const { name: step } of steps) {
        await this.opts.producer.send({
          step,
          group: runtimeGroup(uid),
          dedupId: changeDedupId(uid, step, resourceVersion),
          body: encodeWorkItem({ v: 1, step, runtime: { name, uid }, cause }),
        });
      }
      this.stats.enqueued++;
      this.seen.set(uid, fingerprint(obj));
    } catch (err) {
      // Not advancing the checkpoint and relisting next means the event is sent again.
      this.sendFailed = true;
      this.stopWatch?.();
      this.opts.log.error('enqueue failed; will relist', { runtimeUID: uid, ...errorFields(err) });
    }
  }

  private async advance(rv: string): Promise<void> {
    this.rv = rv;
    await this.opts.checkpoint.save(rv);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

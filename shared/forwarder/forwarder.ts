// Forwards watch events of one kind to the queue as keys of the runtime they concern. It
// resumes from the last resourceVersion it saw (bookmarks keep that fresh), relists and
// enqueues every object's runtime on `410 Gone`, skips changes no step cares about (our own
// status writes) and says why, coalesces a storm of changes to one runtime into one message
// per step, and never drops an event silently: the checkpoint never passes an unsent change,
// and a failed send forces a relist.
import { GoneError, KubeRequestError, ThrottledError } from '../errors.ts';
import { errorFields } from '../classify.ts';
import { STEP_TABLE } from '../steps/table.ts';
import { DEFAULT_TIMINGS, backoffDelay } from '../timings.ts';
import type { WatchEvent } from '../kube/port.ts';
import { KIND } from '../kube/kinds.ts';
import { METRIC } from '../observability/metrics.ts';
import { reportIfUnreachable } from '../observability/unreachable.ts';
import { type Pending, PendingChanges, changeMessage } from './pendingChanges.ts';
import { RUNTIME_WATCH } from './watched.ts';
import { Answers, StepWakes } from './stepWakes.ts';
import type { RuntimeRef, Watchable, WatchedKind } from './watchedKind.ts';
import type { ForwarderOptions, ForwarderStats } from './options.ts';

export type { ForwarderOptions, ForwarderStats } from './options.ts';

/**
 * At most one message per step for a runtime within this long: a change after a quiet spell
 * goes out at once, and a storm of changes costs one reconcile per interval, not one each.
 */
export const COALESCE_MS = 250;

/** Watches one kind of watched.ts; today that is ClusterRuntime, the only kind a step wakes on. */
export class Forwarder {
  private readonly opts: ForwarderOptions;
  private readonly watched: WatchedKind<Watchable>;
  readonly stats: ForwarderStats = { relists: 0, enqueued: 0, skipped: 0, coalesced: 0, watches: 0 };
  private readonly seen: Map<string, string>;
  private readonly pending = new PendingChanges(() => this.now());
  private flushTimer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The newest resourceVersion handled while changes still wait to be sent. */
  private held: string | undefined;
  private rv: string | undefined;
  private stopped = false;
  private stopWatch: (() => void) | undefined;
  private sendFailed = false;
  /** The steps a change of the watched kind wakes. */
  private readonly wakes: StepWakes;
  private readonly answers: Answers;

  constructor(opts: ForwarderOptions, watched: WatchedKind<Watchable> = RUNTIME_WATCH) {
    this.opts = opts;
    this.watched = watched;
    this.seen = opts.seen ?? new Map<string, string>();
    this.wakes = new StepWakes(watched, opts.table ?? STEP_TABLE);
    this.answers = new Answers(watched);
  }

  /** The kind this forwarder watches. */
  get watches(): WatchedKind<Watchable> {
    return this.watched;
  }

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
        failures = await this.recover(err, failures);
      }
      if (this.quietLongEnough()) break;
    }
    await this.flush(true);
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
  }

  private quietLongEnough(): boolean {
    const q = this.opts.quiet;
    return q !== undefined && this.now() - q.activity.lastNewsAt >= q.afterMs;
  }

  /** Returns the failure count after this error. */
  private async recover(err: unknown, failures: number): Promise<number> {
    // Whatever broke the configuration's watch, the forwarder no longer knows its version (its
    // Role gone with a deleted namespace, say, before the ConfigMap's own deletion reached it),
    // so messages stop vouching for one and every step reads it, until a list succeeds again.
    if (this.watched.isConfiguration) this.opts.configuration?.seen(undefined);
    if (err instanceof GoneError) {
      this.opts.log.info('watch history expired; relisting', { resourceVersion: this.rv });
      this.rv = undefined;
      return failures;
    }
    if (err instanceof ThrottledError) {
      // Expected right after a CRD is installed: its watch cache answers 429 until it has
      // loaded. Not a failure worth a warning; wait as the server asked.
      this.opts.log.debug('api server asked to wait; trying again shortly', { retryAfterMs: err.retryAfterMs });
      await sleep(Math.min(err.retryAfterMs, 5000));
      return failures;
    }
    if (err instanceof KubeRequestError && err.status === 404) {
      // A kind whose API is not served (Argo CD not installed yet): normal for a while, not a warning.
      this.opts.log.debug('watched kind is not served; looking again shortly', { kind: this.watched.kind.plural });
      this.rv = undefined;
      await sleep(5000);
      return failures;
    }
    // Like client-go's reflector, start over with a list: a server that cannot continue
    // a watch (etcd history without the previous value, say) would fail the same way again.
    this.rv = undefined;
    this.opts.log.warn('watch failed; relisting after a pause', { attempt: failures + 1, ...errorFields(err) });
    reportIfUnreachable(err, this.opts.log);
    await sleep(Math.min(backoffDelay(failures + 1, DEFAULT_TIMINGS, () => 0) / 10, 5000));
    return failures + 1;
  }

  private async relist(): Promise<void> {
    const list = await this.opts.kube.list(this.watched.kind, this.watched.selection);
    this.stats.relists++;
    this.sendFailed = false;
    this.seen.clear();
    this.pending.clear();
    if (this.watched.isConfiguration) this.opts.configuration?.seen(list.items[0]);
    for (const obj of list.items) {
      this.seen.set(obj.metadata.uid, this.wakes.print(obj));
      if (this.watched.relistIsNews !== false) this.buffer(obj, 'relist', this.wakes.steps);
    }
    await this.flush(true);
    if (this.sendFailed) return;
    await this.advance(list.resourceVersion);
  }

  private async watchOnce(rv: string): Promise<void> {
    this.stats.watches++;
    const handle = await this.opts.kube.watch(this.watched.kind, {
      ...this.watched.selection,
      resourceVersion: rv,
      timeoutSeconds: this.opts.watchTimeoutSeconds ?? 300,
      // Events are handled strictly in order, so the checkpoint never passes an unsent event.
      onEvent: (ev) => this.then(() => this.onEvent(ev)),
    });
    this.stopWatch = handle.stop;
    try {
      await handle.done;
    } finally {
      this.stopWatch = undefined;
      await this.chain;
      await this.flush(true);
    }
  }

  private then(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn);
  }

  private async onEvent(ev: WatchEvent<Watchable>): Promise<void> {
    if (this.sendFailed) return;
    const obj = ev.object;
    if (ev.type !== 'BOOKMARK') {
      if (this.watched.isConfiguration) this.opts.configuration?.seen(ev.type === 'DELETED' ? undefined : obj);
      this.answers.note(obj);
      this.consider(ev.type, obj);
    }
    await this.flush();
    if (this.sendFailed) return;
    if (this.pending.size > 0) this.held = obj.metadata.resourceVersion;
    else await this.advance(obj.metadata.resourceVersion);
  }

  private consider(type: string, obj: Watchable): void {
    const uid = obj.metadata.uid;
    const print = this.wakes.print(obj);
    if (type !== 'DELETED' && this.seen.get(uid) === print) {
      this.stats.skipped++;
      this.opts.log.debug('event skipped: nothing a step acts on changed', {
        objectUID: uid,
        resourceVersion: obj.metadata.resourceVersion,
      });
      return;
    }
    const before = this.seen.get(uid);
    if (type === 'DELETED' && this.watched.kind === KIND.clusterRuntime) this.opts.gone?.add(uid);
    if (type === 'DELETED') this.seen.delete(uid);
    else this.seen.set(uid, print);
    const woken = this.wakes.wokenBy(type, obj, before, print);
    if (woken.length === 0) {
      this.stats.skipped++;
      return;
    }
    this.buffer(obj, type, woken);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private buffer(obj: Watchable, cause: string, steps: readonly string[]): void {
    const runtime = this.watched.runtimeOf(obj);
    if (!runtime || this.opts.gone?.has(runtime.uid)) {
      this.stats.skipped++;
      return;
    }
    const intervalMs = this.watched.coalesceMs ?? this.opts.coalesceMs ?? 0;
    // The wake beside the event type, so a step's log says which watch asked for the look.
    const named = `${this.watched.wake} ${cause}`;
    const fields = { cause: named, object: obj.metadata.name, runtimeUID: runtime.uid, steps: steps.join(',') };
    this.opts.log.debug('change is news', fields);
    const asked = this.answers.askedBy(obj);
    const change = { runtime, steps, cause: named, resourceVersion: obj.metadata.resourceVersion };
    const atOnce = this.answers.answeredBefore(obj.metadata.uid, asked);
    const folded = this.pending.add(asked === undefined ? change : { ...change, asked }, intervalMs, atOnce);
    if (folded) this.stats.coalesced++;
  }

  /** Sends the waiting changes that are due (all of them when `all`), then lets the checkpoint catch up. */
  private async flush(all = false): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.size === 0 || this.sendFailed) return;
    const now = this.now();
    for (const p of this.pending.dueAt(now, all)) {
      this.pending.remove(p.runtime.uid);
      await this.enqueue(p);
      if (this.sendFailed) return;
      this.pending.markSent(p.runtime.uid, now);
    }
    if (this.pending.size > 0) {
      const next = this.pending.nextDue();
      this.flushTimer = setTimeout(() => this.then(() => this.flush()), Math.max(0, next - this.now()));
      return;
    }
    if (this.held !== undefined) {
      const held = this.held;
      this.held = undefined;
      await this.advance(held);
    }
  }

  /** The runtime's UID when the watched object could not name it (a Node): read it, or undefined when there is none. */
  private async uidOf(ref: RuntimeRef): Promise<string | undefined> {
    if (ref.uid !== '') return ref.uid;
    return (await this.opts.kube.get(KIND.clusterRuntime, ref.name))?.metadata.uid;
  }

  private async enqueue(p: Pending): Promise<void> {
    try {
      const uid = await this.uidOf(p.runtime);
      // Deleted while its change waited to go out: no step has anything to do for it.
      if (uid === undefined || this.opts.gone?.has(uid)) return;
      for (const step of this.wakes.steps.filter((n) => p.steps.includes(n)))
        await this.opts.producer.send(
          changeMessage(p, step, { uid, cluster: this.opts.cluster, configuration: this.opts.configuration?.version }),
        );
      this.stats.enqueued++;
      this.answers.noteSent(p.runtime.uid, p.asked);
      this.opts.quiet?.activity.note(this.now());
      this.opts.log.metric({ metric: METRIC.forwarderLag, value: Math.max(0, this.now() - p.received) });
    } catch (err) {
      // Not advancing the checkpoint and relisting next means the change is sent again.
      this.sendFailed = true;
      // What was recorded as seen includes the change that did not go out.
      this.seen.clear();
      this.stopWatch?.();
      this.opts.log.error('enqueue failed; will relist', { runtimeUID: p.runtime.uid, ...errorFields(err) });
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

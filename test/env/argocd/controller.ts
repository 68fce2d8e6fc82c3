// Drives reconciliations: every watch event and a periodic resync of all Applications ask for
// one, and each Application is reconciled by one reconciliation at a time; requests that come
// meanwhile fold into a single follow-up, as a controller's work queue does.
import type { AppsApi } from './kube.ts';
import { Memory, type ReconcileDeps, reconcile } from './reconcile.ts';

export interface ControllerOptions extends ReconcileDeps {
  readonly api: AppsApi;
  readonly resyncMs: number;
}

export class Controller {
  private readonly memory = new Memory();
  private readonly queued = new Map<string, { again: boolean }>();
  private stopWatch: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: ControllerOptions) {}

  async start(): Promise<void> {
    await this.resync();
    await this.watch();
    this.timer = setInterval(() => void this.resync(), this.opts.resyncMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.stopWatch?.();
  }

  private enqueue(name: string): void {
    const entry = this.queued.get(name);
    if (entry) {
      entry.again = true;
      return;
    }
    this.queued.set(name, { again: false });
    void this.drain(name);
  }

  private async drain(name: string): Promise<void> {
    const entry = this.queued.get(name) ?? { again: false };
    do {
      entry.again = false;
      try {
        await reconcile(this.opts, this.memory, name);
      } catch (err) {
        // The next event or resync tries again.
        this.opts.log(`application ${name}: ${(err as { body?: string }).body ?? (err as Error).message}`);
      }
    } while (entry.again && !this.stopped);
    this.queued.delete(name);
  }

  private async resync(): Promise<void> {
    try {
      for (const app of await this.opts.api.list()) this.enqueue(app.metadata.name);
    } catch (err) {
      this.opts.log(`listing applications: ${(err as Error).message}`);
    }
  }

  private async watch(): Promise<void> {
    const again = (): void => {
      if (!this.stopped) setTimeout(() => void this.watch(), 1000).unref();
    };
    try {
      this.stopWatch = await this.opts.api.watch((type, app) => {
        // ERROR events carry a Status, not an Application; the resync and the re-watch cover them.
        if (type === 'DELETED') this.memory.forget(app.metadata.name);
        else if (type === 'ADDED' || type === 'MODIFIED') this.enqueue(app.metadata.name);
      }, again);
    } catch (err) {
      this.opts.log(`watching applications: ${(err as Error).message}`);
      again();
    }
  }
}

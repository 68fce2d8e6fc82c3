// Where a forwarder keeps the last resourceVersion it handled: in memory for a long-lived
// forwarder (local mode), in a ConfigMap for one that lives a Lambda window (configMapCheckpoint.ts).

export interface Checkpoint {
  load(): Promise<string | undefined>;
  save(resourceVersion: string): Promise<void>;
}

export class MemoryCheckpoint implements Checkpoint {
  private rv: string | undefined;

  constructor(rv?: string) {
    this.rv = rv;
  }
  load(): Promise<string | undefined> {
    return Promise.resolve(this.rv);
  }
  save(resourceVersion: string): Promise<void> {
    this.rv = resourceVersion;
    return Promise.resolve();
  }
}

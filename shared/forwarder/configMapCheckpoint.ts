// The forwarder's checkpoint in the cluster, so a forwarder that lives only for a window (a
// scheduled Lambda) resumes where the last one stopped. Writes are batched: at most one per
// 30 s while events or bookmarks flow (so a successor resumes inside the API server's ~75 s of
// watch history), and one when the window ends. Overlapping windows may race; the
// newer resourceVersion wins, and replaying from an older one only re-sends keys that the
// queue deduplicates and the steps treat as no-ops.
import { FORWARDER_CHECKPOINT } from '../api/constants.ts';
import { errorFields } from '../classify.ts';
import { ConflictError } from '../errors.ts';
import type { KubePort } from '../kube/port.ts';
import { type ConfigMapObject, KIND } from '../kube/kinds.ts';
import type { Logger } from '../observability/log.ts';
import type { Checkpoint } from './checkpoint.ts';

const { namespace, key } = FORWARDER_CHECKPOINT;

/** True when a is a later etcd revision than b (both numeric); otherwise a counts as newer. */
export function isNewer(a: string, b: string | undefined): boolean {
  if (b === undefined || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return BigInt(a) > BigInt(b);
}

export class ConfigMapCheckpoint implements Checkpoint {
  private readonly kube: Pick<KubePort, 'get' | 'create' | 'update'>;
  private readonly log: Logger;
  private stored: ConfigMapObject | undefined;
  private rv: string | undefined;
  private dirty = false;
  private lastFlush: number;

  private readonly flushEveryMs: number;
  private readonly now: () => number;
  /** One ConfigMap per watched kind (watched.ts `checkpointName`). */
  private readonly name: string;

  constructor(
    kube: Pick<KubePort, 'get' | 'create' | 'update'>,
    log: Logger,
    opts: { readonly flushEveryMs?: number; readonly now?: () => number; readonly name?: string } = {},
  ) {
    this.kube = kube;
    this.log = log;
    this.flushEveryMs = opts.flushEveryMs ?? 30_000;
    this.now = opts.now ?? Date.now;
    this.name = opts.name ?? FORWARDER_CHECKPOINT.name;
    this.lastFlush = this.now();
  }

  async load(): Promise<string | undefined> {
    this.stored = await this.kube.get(KIND.configMap, this.name, namespace);
    this.rv = this.stored?.data?.[key];
    return this.rv;
  }

  async save(resourceVersion: string): Promise<void> {
    this.rv = resourceVersion;
    this.dirty = true;
    if (this.now() - this.lastFlush >= this.flushEveryMs) await this.flush();
  }

  /** Writes the latest resourceVersion if it moved; safe to call at any time. */
  async flush(): Promise<void> {
    if (!this.dirty || this.rv === undefined) return;
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        await this.write(this.rv);
        this.dirty = false;
        this.lastFlush = this.now();
        return;
      } catch (err) {
        if (!(err instanceof ConflictError)) throw err;
        this.stored = await this.kube.get(KIND.configMap, this.name, namespace);
        const theirs = this.stored?.data?.[key];
        if (theirs !== undefined && !isNewer(this.rv, theirs)) {
          this.log.debug('checkpoint already further along', { resourceVersion: theirs });
          this.dirty = false;
          return;
        }
        this.log.debug('checkpoint write raced; retrying', { attempt, ...errorFields(err) });
      }
    }
  }

  private async write(rv: string): Promise<void> {
    const resourceVersion = this.stored?.metadata.resourceVersion;
    const cm = {
      metadata: {
        name: this.name,
        namespace,
        ...(resourceVersion ? { resourceVersion } : {}),
        labels: { 'app.kubernetes.io/managed-by': 'aicr-control-plane' },
      },
      data: { [key]: rv },
    };
    this.stored = resourceVersion
      ? await this.kube.update(KIND.configMap, cm)
      : await this.kube.create(KIND.configMap, cm);
  }
}

// When this process last started a look of each step for each runtime. A look again that a step
// asked for is redundant once a later look of the same step has run: that look asked for its own
// if it needed one. Only this process's looks are known; a message another process ran the later
// look for is run as before, so forgetting never skips a look that was needed.
import { forgetOldest } from '../boundedMemory.ts';
import type { Logger } from '../observability/log.ts';
import type { WorkItem } from '../queue/workItem.ts';

/** Runtimes and steps remembered; the least recently looked at go first. */
const KEPT = 4096;

export class LookTimes {
  private readonly startedAt = new Map<string, number>();

  /**
   * Records a look starting now, or says (and returns false) that the item is a look again a later
   * look made redundant.
   */
  begin(item: WorkItem, at: number, log: Logger): boolean {
    if (this.superseded(item)) {
      log.debug('a later look of this step asked for its own look again; this one is skipped', {
        askedAt: item.askedAt,
      });
      return false;
    }
    this.started(item, at);
    return true;
  }

  private started(item: WorkItem, at: number): void {
    const key = keyOf(item);
    this.startedAt.delete(key);
    this.startedAt.set(key, at);
    forgetOldest(this.startedAt, KEPT);
  }

  /** Whether the item is a look again asked before a look of the same step that has since started. */
  private superseded(item: WorkItem): boolean {
    if (item.askedAt === undefined) return false;
    return (this.startedAt.get(keyOf(item)) ?? -1) > item.askedAt;
  }
}

function keyOf(item: WorkItem): string {
  return `${item.cluster ?? ''}/${item.runtime.uid}/${item.step}`;
}

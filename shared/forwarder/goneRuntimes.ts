// Runtimes the forwarder saw deleted, shared by the watches of one process. A change that
// concerns one of them (its rollouts and snapshots going with it, a run's Job finishing late)
// leaves no step anything to do: the step would read the runtime only to find it gone. UIDs are
// never reused, so remembering one can only ever skip a look that would have found nothing.
import { forgetOldest } from '../boundedMemory.ts';

/** How many UIDs are kept; the oldest go first. A runtime is deleted rarely, so this is years of them. */
const KEPT = 1024;

export class GoneRuntimes {
  private readonly uids = new Set<string>();

  add(uid: string): void {
    this.uids.add(uid);
    forgetOldest(this.uids, KEPT);
  }

  /** Whether the runtime is gone; an empty UID (one the forwarder looks up when it sends) never is. */
  has(uid: string): boolean {
    return uid !== '' && this.uids.has(uid);
  }
}

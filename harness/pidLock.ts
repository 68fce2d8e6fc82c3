// An exclusive lock between test processes: a file created only if absent, holding its owner's
// PID, so a lock whose owner died without letting go (a file killed at its timeout) is cleared.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the lock at `path` for this process; false while another living process holds it. */
export function tryLock(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder = 0;
      try {
        holder = Number(readFileSync(path, 'utf8').trim());
      } catch {
        // let go meanwhile
      }
      if (holder > 0 && alive(holder)) return false;
      try {
        unlinkSync(path);
      } catch {
        // another process cleared it first
      }
    }
  }
  return false;
}

/** Lets go of a lock this process holds. */
export function unlock(path: string): void {
  try {
    if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Runs `fn` holding the lock at `path`, waiting for it as long as another process holds it. */
export async function withLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  while (!tryLock(path)) await new Promise((r) => setTimeout(r, 200));
  try {
    return await fn();
  } finally {
    unlock(path);
  }
}

// Loaded before each test file (node --import) when scripts/test.sh runs files side by side: the
// file's process takes one of the test environments the script started, by an exclusive lock
// file in that environment's state link, and holds it until it exits. Two files never share a
// cluster, since most of them own the cluster-scoped runtime `cluster` while they run. Run by
// hand, without TESTENV_ENVIRONMENTS, this does nothing and the file uses test/env/.state.
import { join } from 'node:path';
import { readEnvFile } from '../../harness/envFile.ts';
import { tryLock, unlock } from '../../harness/pidLock.ts';

const LINKS = (process.env['TESTENV_ENVIRONMENTS'] ?? '').split(':').filter(Boolean);
const WAIT_MS = 120_000;

function take(links: readonly string[]): string {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + WAIT_MS;
  for (;;) {
    for (const link of links) if (tryLock(join(link, 'in-use'))) return link;
    // The runner starts a file only when another has ended, so a slot frees at once; waiting is rare.
    if (Date.now() > until)
      throw new Error(
        `no free test environment among ${links.join(', ')} after ${WAIT_MS / 1000} s: is --test-concurrency above their number?`,
      );
    Atomics.wait(pause, 0, 0, 100);
  }
}

/** The variables up.sh wrote for the environment, with `$PATH` taken from this process. */
function load(link: string): void {
  for (const [name, value] of Object.entries(readEnvFile(join(link, 'env'))))
    process.env[name] = value.replaceAll('$PATH', process.env['PATH'] ?? '');
}

if (process.env['NODE_TEST_CONTEXT'] && LINKS.length > 0) {
  const link = take(LINKS);
  load(link);
  process.on('exit', () => unlock(join(link, 'in-use')));
}

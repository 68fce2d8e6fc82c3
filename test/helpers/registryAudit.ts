// The writes the registry proxy passed on to the registry (its audit file, see
// test/env/proxy/registryProxy.ts): tests count pushes with it, e.g. to prove a resolution of
// charts already mirrored pushes nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProxyWrite } from '../env/proxy/registryProxy.ts';
import { testEnv } from '../../harness/env.ts';

const auditFile = (): string => join(testEnv().TESTENV_STATE, 'registry-proxy-writes.log');

export async function proxyWrites(): Promise<ProxyWrite[]> {
  const text = await readFile(auditFile(), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ProxyWrite);
}

/** A mark to count from: the number of writes recorded so far. */
export async function proxyWriteMark(): Promise<number> {
  return (await proxyWrites()).length;
}

/** The writes recorded since `mark` to repositories under `prefix` (`<repository path>/`), optionally leaving some out. */
export async function proxyWritesSince(mark: number, prefix: string, except: RegExp = /$^/): Promise<ProxyWrite[]> {
  return (await proxyWrites()).slice(mark).filter((w) => w.path.startsWith(`/v2/${prefix}/`) && !except.test(w.path));
}

// The test registry's process, stopped and started again as an operator would restart it: the
// same binary, configuration, address and storage, so what was pushed before is still there.
// The new PID goes where up.sh recorded the first, so down.sh stops it.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openSync, closeSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { testEnv } from '../../harness/env.ts';

const STOP_GRACE_MS = 10_000;
const START_LIMIT_MS = 30_000;
const POLL_MS = 50;

const pidFile = (): string => join(testEnv().TESTENV_STATE, 'registry.pid');

/** Alive and not a zombie. */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== '' && state !== 'Z';
}

async function until(what: string, limitMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${limitMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What the registry's address answers now: an HTTP status, or undefined when nothing listens. */
export async function registryAnswers(): Promise<number | undefined> {
  try {
    return (await fetch(`http://${testEnv().TESTENV_REGISTRY}/v2/`, { signal: AbortSignal.timeout(5000) })).status;
  } catch {
    return undefined;
  }
}

export async function stopRegistryProcess(): Promise<void> {
  const pid = Number((await readFile(pidFile(), 'utf8')).trim());
  if (!(await alive(pid))) throw new Error(`the registry (PID ${pid}) is not running`);
  process.kill(pid, 'SIGTERM');
  await until('the registry to exit', STOP_GRACE_MS, async () => !(await alive(pid))).catch(() =>
    process.kill(pid, 'SIGKILL'),
  );
  await until('the registry to exit', STOP_GRACE_MS, async () => !(await alive(pid)));
  await until(
    'the registry address to refuse connections',
    STOP_GRACE_MS,
    async () => (await registryAnswers()) === undefined,
  );
}

export async function startRegistry(): Promise<void> {
  const { TESTENV_STATE: state, TESTENV_REGISTRY_BIN: bin } = testEnv();
  const log = openSync(join(state, 'registry.log'), 'a');
  try {
    const child = spawn(bin, ['serve', join(state, 'registry', 'config.yml')], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    await once(child, 'spawn');
    await writeFile(pidFile(), `${child.pid}\n`);
    child.unref();
  } finally {
    closeSync(log);
  }
  await until('the registry to answer again', START_LIMIT_MS, async () => (await registryAnswers()) !== undefined);
}

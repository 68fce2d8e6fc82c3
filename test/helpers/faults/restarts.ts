// FLT-1's restarts (test-only): the parts around the control plane stopped and started again as
// an operator would restart them, while a rollout runs. kube-apiserver is restarted as the same
// process (its own command line, read from /proc, and the log and PID files up.sh keeps; SIGTERM,
// then SIGKILL after 10 s of its minute-long graceful shutdown); Argo
// CD's application controller, repo-server and Redis by deleting their Pods, which their
// StatefulSet and Deployments create again on the process node; the registry through its process
// helper. Each call returns once the part answers again, so a restart is a fault that really
// happened and ended.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NAMESPACES } from '../../../shared/api/constants.ts';
import { testEnv } from '../../../harness/env.ts';
import { startRegistry, stopRegistryProcess } from '../registryProcess.ts';
import { kubectl, waitFor } from '../../../harness/runtime.ts';

export const ARGO_CD_PARTS = ['argocd-application-controller', 'argocd-repo-server', 'argocd-redis'] as const;
export const PARTS = ['kube-apiserver', ...ARGO_CD_PARTS, 'registry'] as const;
export type Part = (typeof PARTS)[number];

const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== '' && state !== 'Z';
};

async function apiServerReady(): Promise<true | undefined> {
  return (await kubectl('get', '--raw', '/readyz').catch(() => '')).trim() === 'ok' ? true : undefined;
}

/** kube-apiserver stopped (SIGTERM, as systemd would) and started again with the same arguments. */
async function restartApiServer(): Promise<void> {
  const state = testEnv().TESTENV_STATE;
  const pidFile = join(state, 'kube-apiserver.pid');
  const pid = Number((await readFile(pidFile, 'utf8')).trim());
  const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
  const [bin, ...args] = argv;
  if (!bin) throw new Error(`kube-apiserver (PID ${pid}) has no command line`);
  process.kill(pid, 'SIGTERM');
  // Its graceful shutdown waits a minute for in-flight requests; past a short grace it is killed,
  // as a node losing power would, which is as much a restart for its clients.
  const gone = async (): Promise<true | undefined> => ((await alive(pid)) ? undefined : true);
  await waitFor('kube-apiserver to exit', gone, 10_000).catch(() => process.kill(pid, 'SIGKILL'));
  await waitFor('kube-apiserver to exit', gone, 10_000);
  const log = openSync(join(state, 'kube-apiserver.log'), 'a');
  try {
    const child = spawn(bin, args, { detached: true, stdio: ['ignore', log, log] });
    await once(child, 'spawn');
    await writeFile(pidFile, `${child.pid}\n`);
    child.unref();
  } finally {
    closeSync(log);
  }
  await waitFor('kube-apiserver ready again', apiServerReady, 120_000);
}

const podsOf = async (part: string): Promise<{ uid: string; ready: boolean }[]> => {
  const out = await kubectl(
    '-n',
    NAMESPACES.argocd,
    'get',
    'pods',
    '-l',
    `app.kubernetes.io/name=${part}`,
    '-o',
    'jsonpath={range .items[*]}{.metadata.uid} {.status.containerStatuses[0].ready} {.metadata.deletionTimestamp}{"\\n"}{end}',
  );
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '))
    .filter(([, , deleting]) => !deleting)
    .map(([uid, ready]) => ({ uid: uid ?? '', ready: ready === 'true' }));
};

/** The part's Pods deleted; back once Pods it did not have before are ready. */
async function restartArgoCdPart(part: string): Promise<void> {
  const before = (await podsOf(part)).map((p) => p.uid);
  if (before.length === 0) throw new Error(`no Pod of ${part} to restart`);
  await kubectl('-n', NAMESPACES.argocd, 'delete', 'pods', '-l', `app.kubernetes.io/name=${part}`, '--wait=false');
  await waitFor(
    `${part} running again in a new Pod`,
    async () => {
      const now = await podsOf(part);
      return now.length > 0 && now.every((p) => p.ready && !before.includes(p.uid)) ? true : undefined;
    },
    180_000,
  );
}

async function restartRegistry(): Promise<void> {
  await stopRegistryProcess();
  try {
    // Down long enough for a pull or a digest check to find it gone.
    await new Promise((r) => setTimeout(r, 3_000));
  } finally {
    await startRegistry();
  }
}

export async function restart(part: Part): Promise<void> {
  if (part === 'kube-apiserver') return restartApiServer();
  if (part === 'registry') return restartRegistry();
  return restartArgoCdPart(part);
}

/**
 * Restarts the parts in turn, each after a seeded pause, until `work` settles; the restart under
 * way when it settles is finished first, so every part is up when this returns. Returns what
 * `work` gave and the restarts done, in order.
 */
export async function restartsDuring<T>(
  work: Promise<T>,
  parts: readonly Part[],
  rng: () => number,
  pauseMs = { min: 2_000, spread: 6_000 },
): Promise<{ value: T; restarted: Part[] }> {
  let settled = false;
  const watched = work.finally(() => {
    settled = true;
  });
  const restarted: Part[] = [];
  const loop = (async () => {
    for (let i = 0; !settled; i++) {
      await Promise.race([
        new Promise((r) => setTimeout(r, pauseMs.min + Math.floor(rng() * pauseMs.spread))),
        watched.catch(() => undefined),
      ]);
      if (settled) break;
      const part = parts[i % parts.length];
      if (!part) break;
      await restart(part);
      restarted.push(part);
    }
  })();
  try {
    const value = await watched;
    return { value, restarted };
  } finally {
    await loop;
  }
}

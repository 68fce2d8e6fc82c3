// Runs one container as a local process in its own mount namespace and reports how it ended.
// Its output goes to a log file in the Pod's directory (what `kubectl logs` would read), and
// its PID is recorded under the environment's procs/ directory until it exits, so down.sh can
// stop it even if the process node itself dies.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import { type BindMount, mountScript, rootDirs } from './mountScript.ts';

export interface ContainerSpec {
  readonly podDir: string;
  readonly procsDir: string;
  readonly container: V1Container;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly mounts: readonly BindMount[];
}

export interface Exit {
  readonly exitCode: number;
  readonly signal: string | null;
  readonly message: string;
}

export interface RunningContainer {
  readonly pid: number;
  readonly exited: Promise<Exit>;
  /** Signals the container's whole process group. */
  signal(sig: NodeJS.Signals): void;
}

const MESSAGE_LIMIT = 4096;
const LOG_TAIL_LINES = 80;
const LOG_TAIL_BYTES = 2048;

export async function startContainer(spec: ContainerSpec): Promise<RunningContainer> {
  const name = spec.container.name;
  const termFile = join(spec.podDir, 'termination', name);
  const logFile = join(spec.podDir, 'logs', `${name}.log`);
  await mkdir(join(spec.podDir, 'termination'), { recursive: true });
  await mkdir(join(spec.podDir, 'logs'), { recursive: true });
  await writeFile(termFile, '');
  const mounts = [
    ...spec.mounts,
    { source: termFile, target: spec.container.terminationMessagePath ?? '/dev/termination-log', readOnly: false },
  ];
  const layerDir = join(spec.podDir, 'rootfs', name);
  for (const dir of rootDirs(layerDir).dirs) await mkdir(dir, { recursive: true });
  const script = join(spec.podDir, `run-${name}.sh`);
  await writeFile(script, mountScript(layerDir, mounts, spec.container.workingDir));
  const log = createWriteStream(logFile, { flags: 'a' });
  // detached: its own process group, so a signal reaches everything the command started.
  const child = spawn('unshare', ['-m', '--propagation', 'private', '--', 'bash', script, ...spec.argv], {
    detached: true,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? 0;
  const pidFile = join(spec.procsDir, String(pid));
  await writeFile(pidFile, name);
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<Exit>((resolve) => {
    child.once('close', (code, sig) => {
      log.end(() => {
        void rm(pidFile, { force: true })
          .then(() => terminationMessage(spec.container, termFile, logFile, code ?? 128))
          .then((message) => resolve({ exitCode: code ?? 128 + signalNumber(sig), signal: sig, message }));
      });
    });
  });
  return {
    pid,
    exited,
    signal: (sig) => {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    },
  };
}

function signalNumber(sig: NodeJS.Signals | null): number {
  return sig === 'SIGKILL' ? 9 : sig === 'SIGTERM' ? 15 : sig === 'SIGINT' ? 2 : 0;
}

async function terminationMessage(
  container: V1Container,
  termFile: string,
  logFile: string,
  exitCode: number,
): Promise<string> {
  const written = (await readFile(termFile, 'utf8').catch(() => '')).slice(0, MESSAGE_LIMIT);
  if (written || exitCode === 0 || container.terminationMessagePolicy !== 'FallbackToLogsOnError') return written;
  const lines = (await readFile(logFile, 'utf8').catch(() => '')).split('\n');
  const tail = lines.slice(-LOG_TAIL_LINES - 1).join('\n');
  return tail.length > LOG_TAIL_BYTES ? tail.slice(-LOG_TAIL_BYTES) : tail;
}

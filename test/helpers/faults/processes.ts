// The fault suite's control-plane processes (FLT-1, test only): each runs the fault harness
// (crashingControlPlane.ts) in a child process with its faults chosen by the test, from seeds, so
// a failing run replays. The settings come from the environment, as the suite's header says.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kubectl } from '../../../harness/runtime.ts';
import { ROOT } from '../../../harness/sls.ts';
import { CONFLICT_LINE, CRASH_LINE, DELAY_LINE, DUPLICATE_LINE, GONE_LINE, SEND_LINE, THROTTLE_LINE } from './lines.ts';

/** The control plane the harness runs: local mode, or the AWS path (forwarder, SQS, the rollout and relay functions). */
export type Path = 'local' | 'sqs';
const HARNESS: Record<Path, string> = {
  local: fileURLToPath(new URL('./crashingControlPlane.ts', import.meta.url)),
  sqs: fileURLToPath(new URL('./crashingFunctions.ts', import.meta.url)),
};
export const SEED = Number(process.env['AICR_FAULT_SEED'] ?? '20261203');
// Two releases are the fewest with an order between steps (and, in an upgrade, an upgrade, a
// removal and an install); each more only repeats those under the same faults, at a process
// start of seconds per crash, so the long run sizes it with AICR_FAULT_RELEASES.
export const RELEASES = Number(process.env['AICR_FAULT_RELEASES'] ?? '2');
/** Crash points are drawn from 1..STRIDE writes after each start. */
const STRIDE = Number(process.env['AICR_FAULT_STRIDE'] ?? '6');
const MAX_STARTS = 40 * RELEASES;
/** The share of messages each process handles twice. */
const DUPLICATE = process.env['AICR_FAULT_DUPLICATE'] ?? '0.3';

/**
 * What a busy API server and an unruly queue do: shares of writes answered 409 and of requests
 * answered 429 instead of being sent, of watches ended with 410 Gone, and of messages held back.
 */
export interface Busy {
  readonly conflicts: string;
  readonly throttles: string;
  readonly gone: string;
  readonly holdBack: string;
}
export const CALM: Busy = { conflicts: '0', throttles: '0', gone: '0', holdBack: '0' };
export const BUSY: Busy = {
  conflicts: process.env['AICR_FAULT_CONFLICTS'] ?? '0.1',
  throttles: process.env['AICR_FAULT_THROTTLES'] ?? '0.05',
  gone: process.env['AICR_FAULT_GONE'] ?? '0.3',
  holdBack: process.env['AICR_FAULT_HOLD_BACK'] ?? '0.2',
};
/** One process's faults besides its crash: the share of messages it handles twice, and how busy its API server is. */
interface Mix {
  readonly duplicate: string;
  readonly busy: Busy;
  readonly path?: Path;
  /** The step table's rows the process runs (local mode only). */
  readonly steps?: readonly string[];
}

/** mulberry32: small, seeded, and the same sequence on every machine. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Start {
  readonly crashAfter: number;
  /** The harness's crash line, when this process was killed by it. */
  readonly crash?: string;
  /** How many messages it handled twice. */
  readonly duplicates: number;
  /** How many requests it was answered 409 or 429 without their being sent. */
  readonly refused: number;
  /** How many of its watches were ended with 410 Gone. */
  readonly expired: number;
  /** How many of its messages were held back. */
  readonly heldBack: number;
  /**
   * The writes it sent, in order (`verb resource/name`), answered or not: one sent just before
   * the process was killed after another may have been taken by the API server all the same.
   */
  readonly sent: readonly string[];
}

/** A probe that reads the cluster: false while the API server cannot answer (it may be restarting). */
const tolerant =
  <A extends unknown[]>(probe: (...a: A) => Promise<boolean>) =>
  (...a: A): Promise<boolean> =>
    probe(...a).catch(() => false);

/**
 * What the cluster said when a process ran out of time: the runtime's conditions and each
 * rollout's state, so a run that failed on a CI machine can be read from its output alone.
 */
async function clusterSays(): Promise<string> {
  const runtime = await kubectl(
    'get',
    'clusterruntimes',
    '-o',
    'jsonpath={range .items[*].status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\\n"}{end}',
  ).catch((err: unknown) => `(runtime unread: ${String(err)})`);
  const rollouts = await kubectl(
    'get',
    'runtimerollouts',
    '-o',
    'jsonpath={range .items[*]}{.metadata.name} {.status.outcome} {.status.steps[*].state}{"\\n"}{end}',
  ).catch((err: unknown) => `(rollouts unread: ${String(err)})`);
  return `the runtime's conditions:\n${runtime}the rollouts:\n${rollouts}`;
}

/** One process of the control plane, killed by the harness after `crashAfter` writes, or stopped once `done` holds. */
export function runProcess(
  crashAfter: number,
  seed: number,
  done: (out: string) => Promise<boolean>,
  { duplicate, busy, path = 'local', steps = ['rollout'] }: Mix = { duplicate: DUPLICATE, busy: CALM },
): Promise<Start> {
  const child = spawn(process.execPath, [HARNESS[path]], {
    cwd: ROOT,
    env: {
      ...process.env,
      AICR_FAULT_CRASH_AFTER_WRITE: String(crashAfter),
      AICR_FAULT_STEPS: steps.join(','),
      AICR_FAULT_DUPLICATE: duplicate,
      AICR_FAULT_CONFLICTS: busy.conflicts,
      AICR_FAULT_THROTTLES: busy.throttles,
      AICR_FAULT_GONE: busy.gone,
      AICR_FAULT_HOLD_BACK: busy.holdBack,
      AICR_FAULT_SEED: String(seed),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // AICR_FAULT_LOG=<file> keeps every process's whole output there, to read a failing seed's run.
  const keep = process.env['AICR_FAULT_LOG'];
  const take = (d: Buffer): void => {
    out += d.toString();
    if (keep) appendFileSync(keep, d);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const linesOf = (prefix: string): string[] => out.split('\n').filter((l) => l.startsWith(prefix));
  const lines = (prefix: string): number => linesOf(prefix).length;
  const counts = (): Omit<Start, 'crashAfter' | 'crash'> => ({
    duplicates: lines(DUPLICATE_LINE),
    refused: lines(CONFLICT_LINE) + lines(THROTTLE_LINE),
    expired: lines(GONE_LINE),
    heldBack: lines(DELAY_LINE),
    sent: linesOf(`${SEND_LINE}: `).map((l) => l.slice(SEND_LINE.length + 2)),
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  return new Promise<Start>((resolve, reject) => {
    let finished = false;
    const deadline = Date.now() + 180_000;
    const poll = async (): Promise<void> => {
      while (!finished) {
        if (await tolerant(done)(out)) {
          finished = true;
          child.kill('SIGTERM');
          await exited;
          resolve({ crashAfter, ...counts() });
          return;
        }
        if (Date.now() > deadline) {
          finished = true;
          child.kill('SIGKILL');
          reject(
            new Error(
              `a control-plane process ran 180 s without a crash or the goal; ${await clusterSays()}the writes it sent: ${counts().sent.join('; ')}\nits output:\n${out.slice(-4000)}`,
            ),
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    void exited.then((signal) => {
      if (finished) return;
      finished = true;
      const line = out.split('\n').find((l) => l.startsWith(CRASH_LINE));
      if (signal === 'SIGKILL' && line) resolve({ crashAfter, crash: line, ...counts() });
      else
        reject(
          new Error(
            `the control-plane process ended by itself (signal ${String(signal)}); its output:\n${out.slice(-4000)}`,
          ),
        );
    });
    poll().catch(reject);
  });
}

/**
 * Starts processes, each crashing at a seeded point, until `done` holds. With `everyWrite`, each
 * process is killed right after its first write, so every write of the run is followed by a crash.
 */
export async function crashUntil(
  what: string,
  done: (out?: string) => Promise<boolean>,
  rng: () => number,
  {
    starts,
    busy,
    everyWrite = false,
    path = 'local',
    steps,
  }: { starts: Start[]; busy: Busy; everyWrite?: boolean; path?: Path; steps?: readonly string[] },
): Promise<void> {
  const most = everyWrite ? MAX_STARTS * STRIDE : MAX_STARTS;
  while (!(await tolerant(done)())) {
    assert.ok(
      starts.length < most,
      `${what}: not reached after ${starts.length} starts (seed ${SEED}): ${starts.map((s) => s.crash ?? 'no crash').join('; ')}`,
    );
    const crashAfter = everyWrite ? 1 : 1 + Math.floor(rng() * STRIDE);
    starts.push(
      await runProcess(crashAfter, SEED + starts.length, done, {
        duplicate: everyWrite ? '0' : DUPLICATE,
        busy,
        path,
        ...(steps ? { steps } : {}),
      }),
    );
  }
}

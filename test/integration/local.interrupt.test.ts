// Ctrl-C while `npm start` is still starting must stop exactly what it started and leave no
// state behind. Each case interrupts local mode at one point of its start-up, the way a
// terminal does (SIGINT to the foreground process group), then looks for any process that
// inherited the run's marker and for the run's state directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT } from '../../harness/sls.ts';

interface Interrupted {
  readonly output: string;
  readonly stateDir: string | undefined;
  readonly code: number | null;
}

/** Processes whose environment carries `marker`, i.e. everything the run started. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

function interruptAt(point: RegExp, link: string, marker: string): Promise<Interrupted> {
  const child = spawn('bash', ['scripts/start.sh'], {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, AICR_LOCAL_STATE: link, AICR_INTERRUPT_TEST_MARKER: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stateDir: string | undefined;
  let sent = false;
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    if (sent || !point.test(output)) return;
    sent = true;
    stateDir = readFileSync(join(link, 'state-dir'), 'utf8').trim();
    process.kill(-(child.pid ?? 0), 'SIGINT');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
      reject(new Error(`local mode did not reach ${point} and stop within 90 s; output:\n${output}`));
    }, 90_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ output, stateDir, code });
    });
  });
}

// What a newcomer reads once local mode is up: where the registry is, that GPUs are simulated,
// and how to see the Jobs AICR runs with their logs.
const STARTED: RegExp[] = [
  /OCI registry \(bundles are pushed here\): http:\/\/127\.0\.0\.1:\d+, account \S+ \(password in \S+\/env\)/,
  /through a test stand-in proxy that can answer 403: http:\/\/127\.0\.0\.1:\d+/,
  /GPUs on the H100 Nodes are simulated: a stand-in nvidia-smi/,
  /^ {2}kubectl get jobs -n aicr-jobs -L operator\.aicr\.run\/stage,operator\.aicr\.run\/input$/m,
  /^ {2}kubectl logs -n aicr-jobs job\/<name>$/m,
];

const POINTS: [string, RegExp, RegExp[]][] = [
  ['while kube-apiserver starts (etcd and moto already running)', /starting kube-apiserver/, []],
  ['while the process node starts (controllers and scheduler running)', /starting process-node/, []],
  ['once the control plane itself is starting', /Ctrl-C stops everything/, STARTED],
];

for (const [when, point, shows] of POINTS) {
  test(`interrupting npm start ${when} leaves no process and no state behind`, async () => {
    const base = mkdtempSync(join(tmpdir(), 'aicr-local-'));
    const link = join(base, 'state');
    const marker = `aicr-interrupt-${randomUUID()}`;
    try {
      const run = await interruptAt(point, link, marker);
      assert.ok(run.stateDir, 'the run had named its state directory when it was interrupted');
      assert.deepEqual(processesWith(marker), [], `no process of the run is left; output:\n${run.output}`);
      assert.equal(existsSync(run.stateDir), false, 'the state directory is gone');
      assert.equal(existsSync(link), false, 'the state link is gone');
      assert.match(run.output, /stopped: .*etcd \(\d+/, 'it says what it stopped');
      assert.notEqual(run.code, 0);
      for (const line of shows) assert.match(run.output, line, 'local mode says it on start');
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
}

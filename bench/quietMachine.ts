// Cold imports are CPU-bound. Timed while the test cluster is still busy with an earlier phase's
// work, they would time that work too, while a Lambda sandbox shares its CPU with nothing of ours.
// So the imports wait, for a bounded time, until the machine is mostly idle, and say how idle it
// was: the 1-minute load average the bench printed before lags behind the moment they ran.
import { readFileSync } from 'node:fs';

export interface Quiet {
  /** The share of CPU time spent idle over the last window before timing began, 0 to 1. */
  readonly idleShare: number;
  readonly waitedMs: number;
}

function cpuTimes(): { readonly idle: number; readonly total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are time the CPUs had to spare.
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { idle, total: fields.reduce((a, b) => a + b, 0) };
}

/** Waits until the CPUs were idle for at least `idleShare` of a `windowMs` window, or `maxMs` passed. */
export async function untilQuiet({ idleShare = 0.8, windowMs = 2000, maxMs = 120_000 } = {}): Promise<Quiet> {
  const started = Date.now();
  for (;;) {
    const before = cpuTimes();
    await new Promise((r) => setTimeout(r, windowMs));
    const after = cpuTimes();
    const share = (after.idle - before.idle) / Math.max(1, after.total - before.total);
    const waitedMs = Date.now() - started;
    if (share >= idleShare || waitedMs >= maxMs) return { idleShare: Math.round(share * 100) / 100, waitedMs };
  }
}

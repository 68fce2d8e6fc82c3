// Size of each function's bundle, and how long a fresh Node process takes to import it (the
// module-load part of a Lambda cold start).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { slsPackage } from '../harness/sls.ts';

const run = promisify(execFile);

export interface BundleFigures {
  readonly function: string;
  readonly zipBytes: number;
  readonly bundleBytes: number;
  readonly coldImportMs: { readonly median: number; readonly min: number; readonly runs: number };
  /** The CPU time the same imports took (median): what contention on this machine cannot move. */
  readonly coldImportCpuMs: number;
}

/** The middle of sorted samples, to a tenth of a millisecond. */
const middle = (sorted: readonly number[]): number =>
  Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10;

const IMPORT_TIMER =
  'const t=process.hrtime.bigint();const c=process.cpuUsage();' +
  'import(process.argv[1]).then(()=>{const u=process.cpuUsage(c);' +
  'console.log(Number(process.hrtime.bigint()-t)/1e6,(u.user+u.system)/1e3)})';

/** Packages the service offline into a fresh directory (the template and one zip per function). */
export async function packaged(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'aicr-bench-sls-'));
  await slsPackage(dir, 'bench');
  return dir;
}

export async function measureBundles(runs = 7, dir?: string): Promise<BundleFigures[]> {
  dir ??= await packaged();
  const out: BundleFigures[] = [];
  for (const zip of readdirSync(dir).filter((f) => f.endsWith('.zip'))) {
    const name = zip.replace(/\.zip$/, '');
    const unpacked = join(dir, name);
    await run('python3', [
      '-c',
      'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])',
      join(dir, zip),
      unpacked,
    ]);
    const entry = join(unpacked, 'functions', `${name}.mjs`);
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const { stdout } = await run(process.execPath, ['-e', IMPORT_TIMER, entry], {
        env: { PATH: process.env['PATH'] },
      });
      const [wall, used] = stdout.trim().split(' ').map(Number);
      times.push(wall ?? 0);
      cpu.push(used ?? 0);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    out.push({
      function: name,
      zipBytes: statSync(join(dir, zip)).size,
      bundleBytes: statSync(entry).size,
      coldImportMs: {
        median: middle(times),
        min: Math.round((times[0] ?? 0) * 10) / 10,
        runs,
      },
      coldImportCpuMs: middle(cpu),
    });
  }
  return out;
}

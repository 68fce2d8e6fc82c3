// TEST KNOB: puts the aicr-knob wrapper (./aicr-knob) first on the PATH of a container of the
// aicr image when a forced run is pending as it starts, so a test can make the next
// `aicr <command>` in any Job, the control plane's own included, exit with a code and stderr
// of its choosing or run late. Containers started while none is pending run the real aicr
// with nothing in front of it.
import { chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AICR_RUN_SUFFIX, type KnobPaths } from '../knobFiles.ts';

const WRAPPER = join(dirname(fileURLToPath(import.meta.url)), 'aicr-knob');

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

async function runsPending(paths: KnobPaths): Promise<boolean> {
  const names = await readdir(paths.aicrRuns).catch(() => [] as string[]);
  return names.some((n) => n.endsWith(AICR_RUN_SUFFIX));
}

/** The directories to put before the image's own: the wrapper's, or none. */
export async function aicrKnobPath(podDir: string, paths: KnobPaths, realAicr: string): Promise<string[]> {
  if (!(await runsPending(paths))) return [];
  const root = join(podDir, 'test-knobs');
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(root, 'aicr-knob.env'), `REAL_AICR=${q(realAicr)}\nAICR_RUNS_DIR=${q(paths.aicrRuns)}\n`);
  await copyFile(WRAPPER, join(bin, 'aicr'));
  await chmod(join(bin, 'aicr'), 0o755);
  return [bin];
}

// TEST KNOB: puts the aicr-knob wrapper (./aicr-knob) first on the PATH of a container of the
// aicr image when a forced run is pending as it starts, so a test can make the next
// `aicr <command>` in any Job, the control plane's own included, exit with a code and stderr
// of its choosing or run late; and while the test environment's AICR `--data` overlay exists
// (it points recipes at the fixture chart repository), so that recipe, bundle and query runs
// read it. With neither, the real aicr runs with nothing in front of it.
import { access, chmod, copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
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
  const data = await access(join(paths.aicrData, 'registry.yaml')).then(
    () => paths.aicrData,
    () => '',
  );
  if (data === '' && !(await runsPending(paths))) return [];
  const root = join(podDir, 'test-knobs');
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(
    join(root, 'aicr-knob.env'),
    `REAL_AICR=${q(realAicr)}\nAICR_RUNS_DIR=${q(paths.aicrRuns)}\nAICR_DATA_DIR=${q(data)}\n`,
  );
  await copyFile(WRAPPER, join(bin, 'aicr'));
  await chmod(join(bin, 'aicr'), 0o755);
  return [bin];
}

// The AICR --data overlay the test environment gives every `aicr recipe`, `bundle` and `query`
// in Jobs (test/env/charts/: recipes that name the fixture chart repository). A test that runs
// the binary itself, to compare with what a Job made, passes the same overlay.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { knobPaths } from '../env/knobFiles.ts';
import { testEnv } from '../../harness/env.ts';

export function aicrDataArgs(): string[] {
  const dir = knobPaths(testEnv().TESTENV_STATE).aicrData;
  return existsSync(join(dir, 'registry.yaml')) ? ['--data', dir] : [];
}

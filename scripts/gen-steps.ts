// Writes the code the step table implies: each queue's Lambda handler and local mode's runners,
// and removes the generated handler of a queue no row names any more. A test fails when they are stale.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FUNCTIONS_DIR, GENERATED_HANDLER, RUNNERS_FILE, handlerSources, runnersSource } from '../infra/stepCode.ts';

const wanted = handlerSources();
const marker = GENERATED_HANDLER.slice(0, GENERATED_HANDLER.indexOf('{queue}'));
for (const file of readdirSync(FUNCTIONS_DIR)) {
  const path = join(FUNCTIONS_DIR, file);
  if (!wanted.has(file) && readFileSync(path, 'utf8').startsWith(marker)) {
    rmSync(path);
    console.log(`removed ${relative(process.cwd(), path)}`);
  }
}
for (const [file, text] of [...wanted, [RUNNERS_FILE, runnersSource()] as const]) {
  const path = file === RUNNERS_FILE ? file : join(FUNCTIONS_DIR, file);
  writeFileSync(path, text);
  console.log(`wrote ${relative(process.cwd(), path)}`);
}

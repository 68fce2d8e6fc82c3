// The code a step's row implies is generated: each queue's Lambda handler and local mode's map of
// runners; the committed files are never stale, and no step handler is left without its queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FUNCTIONS_DIR, GENERATED_HANDLER, RUNNERS_FILE, handlerSources, runnersSource } from '../../infra/stepCode.ts';

test('functions/<queue>.ts is what the step table renders for each queue (run npm run gen:steps)', () => {
  const marker = GENERATED_HANDLER.slice(0, GENERATED_HANDLER.indexOf('{queue}'));
  const wanted = handlerSources();
  for (const [file, text] of wanted)
    assert.equal(readFileSync(join(FUNCTIONS_DIR, file), 'utf8'), text, `functions/${file}`);
  const generated = readdirSync(FUNCTIONS_DIR).filter((f) =>
    readFileSync(join(FUNCTIONS_DIR, f), 'utf8').startsWith(marker),
  );
  assert.deepEqual(generated.sort(), [...wanted.keys()].sort(), 'a generated handler for each queue and no other');
});

test('shared/steps/runners.ts is what the step table renders (run npm run gen:steps)', () => {
  assert.equal(readFileSync(RUNNERS_FILE, 'utf8'), runnersSource());
});

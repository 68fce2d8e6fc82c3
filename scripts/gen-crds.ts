// Writes infra/crds/*.yaml from the zod schemas. A test fails when the files are stale.
import { writeFileSync } from 'node:fs';
import { renderCrds } from '../shared/api/renderCrds.ts';

for (const [file, text] of Object.entries(renderCrds())) {
  writeFileSync(new URL(`../infra/crds/${file}`, import.meta.url), text);
  console.log(`wrote infra/crds/${file}`);
}

// Writes the chart's CRD templates and its values schema from the zod schemas. A test fails
// when the files are stale.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CRD_TEMPLATE_DIR, VALUES_SCHEMA } from '../infra/chartPaths.ts';
import { renderCrds } from '../shared/api/renderCrds.ts';
import { renderValuesSchema } from '../shared/configuration/valuesSchema.ts';

for (const [file, text] of Object.entries(renderCrds())) {
  const path = join(CRD_TEMPLATE_DIR, file);
  writeFileSync(path, text);
  console.log(`wrote ${relative(process.cwd(), path)}`);
}

writeFileSync(VALUES_SCHEMA, renderValuesSchema());
console.log(`wrote ${relative(process.cwd(), VALUES_SCHEMA)}`);

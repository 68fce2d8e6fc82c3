// Writes serverless.yml from its template and the step table. A test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { SERVERLESS_YML, renderServerless } from '../infra/serverless/render.ts';

writeFileSync(SERVERLESS_YML, renderServerless());
console.log(`wrote ${relative(process.cwd(), SERVERLESS_YML)}`);

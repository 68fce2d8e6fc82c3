// Writes the chart's RBAC template from the step table. A test fails when the file is stale.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { RBAC_TEMPLATE } from '../infra/chartPaths.ts';
import { renderRbac } from '../shared/rbac/render.ts';

writeFileSync(RBAC_TEMPLATE, renderRbac());
console.log(`wrote ${relative(process.cwd(), RBAC_TEMPLATE)}`);

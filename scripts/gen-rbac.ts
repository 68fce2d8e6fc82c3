// Writes infra/rbac/control-plane.yaml from the step table. A test fails when the file is stale.
import { writeFileSync } from 'node:fs';
import { renderRbac } from '../shared/rbac/render.ts';

writeFileSync(new URL('../infra/rbac/control-plane.yaml', import.meta.url), renderRbac());
console.log('wrote infra/rbac/control-plane.yaml');

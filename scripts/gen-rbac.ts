// Writes the chart's access control: the RBAC template from the step table, and the admission
// policies (plans to their writers, approvals and acknowledgements to their people, Argo CD's
// resources finalizer to Remove steps, the Jobs to pinned images, the configuration to Helm,
// Applications to their runtime and AppProject) from the constants. A test fails when any is stale.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ACCESS_CONTROL_FILES } from '../infra/accessControlFiles.ts';

for (const { path, render } of ACCESS_CONTROL_FILES) {
  writeFileSync(path, render());
  console.log(`wrote ${relative(process.cwd(), path)}`);
}

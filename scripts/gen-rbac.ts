// Writes the chart's access control: the RBAC template from the step table, and the admission
// policy that keeps plans to their writers from the constants. A test fails when either is stale.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { APPROVAL_ADMISSION_TEMPLATE, PLAN_ADMISSION_TEMPLATE, RBAC_TEMPLATE } from '../infra/chartPaths.ts';
import { renderApprovalAdmission } from '../shared/rbac/approvalAdmission.ts';
import { renderPlanAdmission } from '../shared/rbac/planAdmission.ts';
import { renderRbac } from '../shared/rbac/render.ts';

for (const [path, text] of [
  [RBAC_TEMPLATE, renderRbac()],
  [PLAN_ADMISSION_TEMPLATE, renderPlanAdmission()],
  [APPROVAL_ADMISSION_TEMPLATE, renderApprovalAdmission()],
] as const) {
  writeFileSync(path, text);
  console.log(`wrote ${relative(process.cwd(), path)}`);
}

// Writes the chart's access control: the RBAC template from the step table, and the admission
// policies (plans to their writers, approvals and acknowledgements to their people, Argo CD's
// resources finalizer to Remove steps) from the constants. A test fails when any is stale.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { APPLICATION_ADMISSION_TEMPLATE, APPROVAL_ADMISSION_TEMPLATE, PLAN_ADMISSION_TEMPLATE, RBAC_TEMPLATE, VALIDATE_ADMISSION_TEMPLATE } from '../infra/chartPaths.ts';
import { renderApplicationAdmission } from '../shared/rbac/applicationAdmission.ts';
import { renderApprovalAdmission } from '../shared/rbac/approvalAdmission.ts';
import { renderPlanAdmission } from '../shared/rbac/planAdmission.ts';
import { renderRbac } from '../shared/rbac/render.ts';
import { renderValidateAdmission } from '../shared/rbac/validateAdmission.ts';

for (const [path, text] of [
  [RBAC_TEMPLATE, renderRbac()],
  [PLAN_ADMISSION_TEMPLATE, renderPlanAdmission()],
  [APPROVAL_ADMISSION_TEMPLATE, renderApprovalAdmission()],
  [APPLICATION_ADMISSION_TEMPLATE, renderApplicationAdmission()],
  [VALIDATE_ADMISSION_TEMPLATE, renderValidateAdmission()],
] as const) {
  writeFileSync(path, text);
  console.log(`wrote ${relative(process.cwd(), path)}`);
}

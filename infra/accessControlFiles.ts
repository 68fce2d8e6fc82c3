// The chart's generated access control, each file beside what renders it: `npm run gen:rbac`
// writes them all and a unit test fails when any committed one is stale.
import { renderApplicationAdmission } from '../shared/rbac/applicationAdmission.ts';
import { renderApplicationOwnership } from '../shared/rbac/applicationOwnership.ts';
import { renderApprovalAdmission } from '../shared/rbac/approvalAdmission.ts';
import { renderConfigAdmission } from '../shared/rbac/configAdmission.ts';
import { renderPlanAdmission } from '../shared/rbac/planAdmission.ts';
import { renderRecordAdmission } from '../shared/rbac/recordAdmission.ts';
import { renderRbac } from '../shared/rbac/render.ts';
import { renderRuntimeAdmission } from '../shared/rbac/runtimeAdmission.ts';
import { renderValidateAdmission } from '../shared/rbac/validateAdmission.ts';
import { renderWorkloadAdmission } from '../shared/rbac/workloadAdmission.ts';
import {
  APPLICATION_ADMISSION_TEMPLATE,
  APPLICATION_OWNERSHIP_TEMPLATE,
  APPROVAL_ADMISSION_TEMPLATE,
  CONFIG_ADMISSION_TEMPLATE,
  PLAN_ADMISSION_TEMPLATE,
  RBAC_TEMPLATE,
  RECORD_ADMISSION_TEMPLATE,
  RUNTIME_ADMISSION_TEMPLATE,
  VALIDATE_ADMISSION_TEMPLATE,
  WORKLOAD_ADMISSION_TEMPLATE,
} from './chartPaths.ts';

export const ACCESS_CONTROL_FILES: readonly { readonly path: string; readonly render: () => string }[] = [
  { path: RBAC_TEMPLATE, render: () => renderRbac() },
  { path: PLAN_ADMISSION_TEMPLATE, render: renderPlanAdmission },
  { path: APPROVAL_ADMISSION_TEMPLATE, render: renderApprovalAdmission },
  { path: APPLICATION_ADMISSION_TEMPLATE, render: renderApplicationAdmission },
  { path: VALIDATE_ADMISSION_TEMPLATE, render: renderValidateAdmission },
  { path: WORKLOAD_ADMISSION_TEMPLATE, render: renderWorkloadAdmission },
  { path: CONFIG_ADMISSION_TEMPLATE, render: renderConfigAdmission },
  { path: APPLICATION_OWNERSHIP_TEMPLATE, render: renderApplicationOwnership },
  { path: RUNTIME_ADMISSION_TEMPLATE, render: renderRuntimeAdmission },
  { path: RECORD_ADMISSION_TEMPLATE, render: renderRecordAdmission },
];

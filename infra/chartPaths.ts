// Where the generated parts of the cluster-side chart live; the generators write there and the
// staleness tests read there.
import { fileURLToPath } from 'node:url';

export const CHART_DIR = fileURLToPath(new URL('./chart/', import.meta.url));
/** Helm's schema for the values, generated from the configuration's zod schema. */
export const VALUES_SCHEMA = fileURLToPath(new URL('./chart/values.schema.json', import.meta.url));
/** One file per CRD, named <plural>.yaml (docs/adr/0010-cluster-chart.md: why templates/, not crds/). */
export const CRD_TEMPLATE_DIR = fileURLToPath(new URL('./chart/templates/crds/', import.meta.url));
export const RBAC_TEMPLATE = fileURLToPath(new URL('./chart/templates/rbac.yaml', import.meta.url));
/** The admission policy that keeps plans to the control plane's writers, generated beside the RBAC. */
export const PLAN_ADMISSION_TEMPLATE = fileURLToPath(new URL('./chart/templates/plan-admission.yaml', import.meta.url));
/**
 * The approver ClusterRole and the admission policy that holds approvals to their approver,
 * generated beside the RBAC.
 */
export const APPROVAL_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/rollout-approval.yaml', import.meta.url),
);
/**
 * The admission policy that keeps Argo CD's resources finalizer off owned Applications outside a
 * Remove step (FIN-4), generated beside the RBAC.
 */
/** The admission policy that holds aicr validate's creates to the objects AICR writes, generated beside the RBAC. */
export const VALIDATE_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/validate-admission.yaml', import.meta.url),
);
export const APPLICATION_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/application-finalizer.yaml', import.meta.url),
);
/**
 * The admission policy that holds the control plane's Jobs and Pods to pinned images, their
 * ServiceAccounts and no host access (SEC-1).
 */
export const WORKLOAD_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/workload-admission.yaml', import.meta.url),
);
/** The admission policy that keeps the steps off the configuration and the forwarder's checkpoints (SEC-2). */
export const CONFIG_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/config-admission.yaml', import.meta.url),
);
/**
 * The admission policies that hold the control plane's Application writes to its runtime's own, in
 * the configured AppProject (SEC-3).
 */
export const APPLICATION_OWNERSHIP_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/application-ownership.yaml', import.meta.url),
);
export const RUNTIME_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/runtime-admission.yaml', import.meta.url),
);
export const RECORD_ADMISSION_TEMPLATE = fileURLToPath(
  new URL('./chart/templates/rollout-records.yaml', import.meta.url),
);

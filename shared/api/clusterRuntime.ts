// The ClusterRuntime API: the zod schema is the single source for validation in the control
// plane and for the CRD's OpenAPI schema (see crd.ts); CEL rules mirror the refinements.
import * as z from 'zod';
import { type CelRule, celMeta, celPath } from './cel.ts';
import { RUNTIME_NAME } from './constants.ts';
import { ConditionSchema } from './condition.ts';

// Go-style durations as Kubernetes users write them: "90s", "30m", "1h30m".
export const DurationSchema = z
  .string()
  .regex(/^([0-9]+(s|m|h))+$/, { error: 'must be a duration such as 30m, 1h or 1h30m' })
  .meta({ maxLength: 32 });

export const CriteriaSchema = z.object({
  service: z.enum(['eks', 'gke', 'aks', 'oke', 'ocp', 'kind', 'lke', 'bcm', 'metal3', 'rke2', 'generic', 'k0s']).optional(),
  accelerator: z.enum(['h100', 'h200', 'gb200', 'gb300', 'b200', 'a100', 'l40', 'l40s', 'rtx-pro-6000', 'vr200']).optional(),
  intent: z.enum(['training', 'inference']).optional(),
  os: z.enum(['ubuntu', 'rhel', 'cos', 'amazonlinux', 'ol', 'talos']).optional(),
  platform: z.enum(['dynamo', 'kubeflow', 'nim', 'runai', 'slurm']).optional(),
});

export const ComponentOverrideSchema = z.object({
  enabled: z.boolean().optional(),
  version: z.string().min(1).max(128).optional(),
  /** Helm values merged over the recipe's; free-form, so stored as given. */
  values: z.looseObject({}).optional(),
});

const PLAN_NAME = /^aicr-plan-[a-z0-9]{8,64}$/;
const pinnedNeedsPlan: CelRule = {
  rule: "self.mode != 'Pinned' || has(self.plan)",
  message: 'mode Pinned needs the name of a plan (aicr-plan-...)',
  fieldPath: '.plan',
  reason: 'FieldValueRequired',
};
const automaticForbidsPlan: CelRule = {
  rule: "self.mode != 'Automatic' || !has(self.plan)",
  message: 'a plan can be named only with mode Pinned; remove plan or set mode: Pinned',
  fieldPath: '.plan',
  reason: 'FieldValueForbidden',
};

export const SelectionSchema = z
  .object({
    mode: z.enum(['Automatic', 'Pinned']).default('Automatic'),
    plan: z.string().regex(PLAN_NAME, { error: 'must name a plan ConfigMap (aicr-plan-<digest>)' }).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.mode === 'Pinned' && s.plan === undefined) ctx.addIssue({ code: 'custom', message: pinnedNeedsPlan.message, path: celPath(pinnedNeedsPlan) });
    if (s.mode === 'Automatic' && s.plan !== undefined) ctx.addIssue({ code: 'custom', message: automaticForbidsPlan.message, path: celPath(automaticForbidsPlan) });
  })
  .meta(celMeta(pinnedNeedsPlan, automaticForbidsPlan));

export const ClusterRuntimeSpecSchema = z.object({
  aicrVersion: z.string().regex(/^v[0-9]+\.[0-9]+\.[0-9]+$/, { error: 'must be an AICR release such as v1.1.0' }),
  criteria: CriteriaSchema.default({}),
  components: z.record(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/).max(63), ComponentOverrideSchema).optional(),
  selection: SelectionSchema.default({ mode: 'Automatic' }),
  validation: z.object({ deployment: z.enum(['Required', 'Disabled']).default('Required') }).default({ deployment: 'Required' }),
  paused: z.boolean().default(false),
  suspendEngine: z.boolean().default(false),
  deletionPolicy: z.enum(['Orphan', 'Delete']).default('Orphan'),
  adoption: z.object({ runtimeUID: z.uuid({ error: 'must be the UID of the earlier ClusterRuntime' }) }).optional(),
  actionTimeout: DurationSchema.default('30m'),
  approvalTimeout: DurationSchema.default('72h'),
});
export type ClusterRuntimeSpec = z.output<typeof ClusterRuntimeSpecSchema>;

export const ClusterRuntimeStatusSchema = z.object({
  observedGeneration: z.int().min(0).optional(),
  conditions: z.array(ConditionSchema).optional().meta({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  activePlan: z.string().optional(),
  targetPlan: z.string().optional(),
  discovery: z.object({ snapshot: z.object({ configMap: z.string().optional() }).optional() }).optional(),
});
export type ClusterRuntimeStatus = z.output<typeof ClusterRuntimeStatusSchema>;

export const nameIsCluster: CelRule = {
  rule: `self.metadata.name == '${RUNTIME_NAME}'`,
  message: `must be ${RUNTIME_NAME}: a cluster has exactly one ClusterRuntime`,
  fieldPath: '.metadata.name',
  reason: 'FieldValueInvalid',
};

/** What the control plane accepts as a ClusterRuntime; issue paths start at the object root. */
export const ClusterRuntimeSchema = z.object({
  metadata: z.object({ name: z.literal(RUNTIME_NAME, { error: nameIsCluster.message }) }),
  spec: ClusterRuntimeSpecSchema,
});

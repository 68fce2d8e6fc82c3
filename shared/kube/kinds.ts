// The kinds the control plane reads and writes, each with where it lives in the API and a zod
// schema of the part of it the control plane relies on. Unknown fields pass through untouched.
import * as z from 'zod';
import { ConditionSchema } from '../api/condition.ts';
import { GROUP_VERSION, KINDS } from '../api/constants.ts';

export const ObjectMetaSchema = z.looseObject({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string(),
  resourceVersion: z.string(),
  generation: z.int().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  deletionTimestamp: z.string().optional(),
  creationTimestamp: z.string().optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.output<typeof ObjectMetaSchema>;

const object = <S extends z.ZodRawShape>(shape: S) =>
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: ObjectMetaSchema,
    ...shape,
  });

export const RuntimeObjectSchema = object({
  spec: z.unknown().optional(),
  status: z
    .looseObject({
      observedGeneration: z.int().optional(),
      conditions: z.array(ConditionSchema).optional(),
    })
    .optional(),
});
export type RuntimeObject = z.output<typeof RuntimeObjectSchema>;

export const ConfigMapSchema = object({
  data: z.record(z.string(), z.string()).optional(),
  binaryData: z.record(z.string(), z.string()).optional(),
});
export type ConfigMapObject = z.output<typeof ConfigMapSchema>;

const JobConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});

export const JobSchema = object({
  spec: z.looseObject({ ttlSecondsAfterFinished: z.int().optional() }).optional(),
  status: z
    .looseObject({
      active: z.int().optional(),
      succeeded: z.int().optional(),
      failed: z.int().optional(),
      startTime: z.string().optional(),
      completionTime: z.string().optional(),
      conditions: z.array(JobConditionSchema).optional(),
    })
    .optional(),
});
export type JobObject = z.output<typeof JobSchema>;

const ContainerStateSchema = z.looseObject({
  waiting: z.looseObject({ reason: z.string().optional(), message: z.string().optional() }).optional(),
  running: z.looseObject({ startedAt: z.string().optional() }).optional(),
  terminated: z
    .looseObject({
      exitCode: z.int(),
      reason: z.string().optional(),
      message: z.string().optional(),
      finishedAt: z.string().optional(),
    })
    .optional(),
});

export const PodSchema = object({
  status: z
    .looseObject({
      phase: z.string().optional(),
      reason: z.string().optional(),
      message: z.string().optional(),
      conditions: z.array(JobConditionSchema).optional(),
      containerStatuses: z
        .array(z.looseObject({ name: z.string(), state: ContainerStateSchema.optional() }))
        .optional(),
    })
    .optional(),
});
export type PodObject = z.output<typeof PodSchema>;

/** Kinds whose content the control plane does not read yet: metadata is what it relies on. */
export const GenericObjectSchema = object({});
export type GenericObject = z.output<typeof GenericObjectSchema>;

export interface Kind<T> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly schema: z.ZodType<T>;
}

type Where = readonly [apiVersion: string, kind: string, plural: string, scope: 'Namespaced' | 'Cluster'];
const kind = <T>([apiVersion, name, plural, scope]: Where, schema: z.ZodType<T>): Kind<T> => ({
  apiVersion,
  kind: name,
  plural,
  namespaced: scope === 'Namespaced',
  schema,
});

export const KIND = {
  clusterRuntime: kind(
    [GROUP_VERSION, KINDS.clusterRuntime.kind, KINDS.clusterRuntime.plural, 'Cluster'],
    RuntimeObjectSchema,
  ),
  runtimeRollout: kind(
    [GROUP_VERSION, KINDS.runtimeRollout.kind, KINDS.runtimeRollout.plural, 'Cluster'],
    GenericObjectSchema,
  ),
  configMap: kind(['v1', 'ConfigMap', 'configmaps', 'Namespaced'], ConfigMapSchema),
  secret: kind(['v1', 'Secret', 'secrets', 'Namespaced'], GenericObjectSchema),
  pod: kind(['v1', 'Pod', 'pods', 'Namespaced'], PodSchema),
  node: kind(['v1', 'Node', 'nodes', 'Cluster'], GenericObjectSchema),
  namespace: kind(['v1', 'Namespace', 'namespaces', 'Cluster'], GenericObjectSchema),
  serviceAccount: kind(['v1', 'ServiceAccount', 'serviceaccounts', 'Namespaced'], GenericObjectSchema),
  event: kind(['v1', 'Event', 'events', 'Namespaced'], GenericObjectSchema),
  job: kind(['batch/v1', 'Job', 'jobs', 'Namespaced'], JobSchema),
  application: kind(['argoproj.io/v1alpha1', 'Application', 'applications', 'Namespaced'], GenericObjectSchema),
  appProject: kind(['argoproj.io/v1alpha1', 'AppProject', 'appprojects', 'Namespaced'], GenericObjectSchema),
  statefulSet: kind(['apps/v1', 'StatefulSet', 'statefulsets', 'Namespaced'], GenericObjectSchema),
  deployment: kind(['apps/v1', 'Deployment', 'deployments', 'Namespaced'], GenericObjectSchema),
} as const;

/** A kind's API group: '' for the core group, whose apiVersion has no group part. */
export function apiGroupOf(k: Kind<unknown>): string {
  return k.apiVersion.includes('/') ? (k.apiVersion.split('/')[0] ?? '') : '';
}

/** The URL path of a kind's collection, in a namespace when the kind is namespaced. */
export function collectionPath(k: Kind<unknown>, namespace?: string): string {
  const base = apiGroupOf(k) ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
  if (!k.namespaced) return `${base}/${k.plural}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${k.plural}` : `${base}/${k.plural}`;
}

export function objectPath(k: Kind<unknown>, name: string, namespace?: string): string {
  if (k.namespaced && !namespace) throw new Error(`${k.kind} ${name}: a namespace is required`);
  return `${collectionPath(k, namespace)}/${encodeURIComponent(name)}`;
}

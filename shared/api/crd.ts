// Builds the CustomResourceDefinitions from the zod schemas, so the API server validates
// exactly what the control plane validates. `npm run gen:crds` writes them into the chart
// (infra/chart/templates/crds/).
import * as z from 'zod';
import { API_GROUP, API_VERSION, GROUP_VERSION, KINDS } from './constants.ts';
import { type CelRule, celMeta } from './cel.ts';
import { ClusterRuntimeSpecSchema, ClusterRuntimeStatusSchema, nameIsCluster } from './clusterRuntime.ts';
import { RuntimeRolloutSpecSchema, RuntimeRolloutStatusSchema } from './runtimeRollout.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

function isOpenSchema(value: Json): boolean {
  return value === true || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/** Rewrites one key of zod's output; returns the entries to keep. */
function structuralEntry(key: string, value: Json): [string, Json][] {
  if (key === '$schema' || key === 'id' || key === 'propertyNames') return [];
  if (key !== 'additionalProperties') return [[key, toStructural(value)]];
  // An empty schema means "anything goes": Kubernetes spells that preserve-unknown-fields.
  if (isOpenSchema(value)) return [['x-kubernetes-preserve-unknown-fields', true]];
  return value === false ? [] : [[key, toStructural(value)]];
}

/**
 * Turns zod's JSON Schema into a structural OpenAPI v3 schema the API server accepts.
 * Kubernetes cannot check map key names (propertyNames); the zod parse still does. The API
 * server checks date-time and uuid formats itself, so zod's long patterns for them are dropped.
 */
export function toStructural(node: Json): Json {
  if (Array.isArray(node)) return node.map(toStructural);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = Object.fromEntries(Object.entries(node).flatMap(([k, v]) => structuralEntry(k, v)));
  if (out['properties'] && Object.keys(out['properties'] as JsonObject).length === 0) delete out['properties'];
  if (out['format'] === 'date-time' || out['format'] === 'uuid') delete out['pattern'];
  return out;
}

function openapi(schema: z.ZodType): JsonObject {
  return toStructural(
    z.toJSONSchema(schema, { io: 'input', target: 'openapi-3.0', unrepresentable: 'throw' }) as Json,
  ) as JsonObject;
}

interface KindNames {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
}

interface CrdInput {
  readonly names: KindNames;
  readonly spec: z.ZodType;
  readonly status: z.ZodType;
  readonly columns: JsonObject[];
  readonly rootRules?: CelRule[];
  readonly description: string;
}

function buildCrd(input: CrdInput): JsonObject {
  const root: JsonObject = {
    type: 'object',
    description: input.description,
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string', description: `Versioned schema of this object: ${GROUP_VERSION}.` },
      kind: { type: 'string', description: `Kind of this object: ${input.names.kind}.` },
      // The API server allows nothing on metadata but the name's type; it describes metadata itself.
      metadata: { type: 'object', properties: { name: { type: 'string' } } },
      spec: openapi(input.spec),
      status: openapi(input.status),
    },
  };
  if (input.rootRules) Object.assign(root, celMeta(...input.rootRules));
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${input.names.plural}.${API_GROUP}` },
    spec: {
      group: API_GROUP,
      scope: 'Cluster',
      names: { ...input.names, shortNames: [...input.names.shortNames], listKind: `${input.names.kind}List` },
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: input.columns,
          schema: { openAPIV3Schema: root },
        },
      ],
    },
  };
}

const condition = (type: string, field: 'status' | 'reason'): string =>
  `.status.conditions[?(@.type=="${type}")].${field}`;

/** A printer column of a string at `jsonPath`; `priority: 1` shows it only with -o wide. */
const column = (name: string, jsonPath: string, priority?: 1) => ({
  name,
  type: 'string',
  jsonPath,
  ...(priority ? { priority } : {}),
});
const READY = column('Ready', condition('Ready', 'status'));
const REASON = column('Reason', condition('Ready', 'reason'));
const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export function clusterRuntimeCrd(): JsonObject {
  return buildCrd({
    names: KINDS.clusterRuntime,
    spec: ClusterRuntimeSpecSchema,
    status: ClusterRuntimeStatusSchema,
    rootRules: [nameIsCluster],
    description: 'The software stack a GPU cluster should run, declared once per cluster; its only name is cluster.',
    columns: [
      READY,
      column('Stalled', condition('Stalled', 'status')),
      REASON,
      column('Active', '.status.activePlan'),
      column('Target', '.status.targetPlan'),
      column('Candidate', '.status.candidatePlan', 1),
      AGE,
    ],
  });
}

export function runtimeRolloutCrd(): JsonObject {
  return buildCrd({
    names: KINDS.runtimeRollout,
    spec: RuntimeRolloutSpecSchema,
    status: RuntimeRolloutStatusSchema,
    description: 'One move of the ClusterRuntime from one plan to another; created by the control plane.',
    columns: [
      column('Type', '.spec.type'),
      column('From', '.spec.fromPlan', 1),
      column('Target', '.spec.toPlan'),
      READY,
      REASON,
      column('Outcome', '.status.outcome'),
      column('Approved-By', '.spec.approval.approvedBy'),
      column('Deadline', '.spec.deadline', 1),
      AGE,
    ],
  });
}

export const ALL_CRDS = { clusterruntimes: clusterRuntimeCrd, runtimerollouts: runtimeRolloutCrd } as const;

// The ClusterRuntime's spec and status as every reader takes them, with one rule for what an
// unreadable part means, so no reader invents its own fallback:
// - the spec is whole or nothing: a spec that does not validate gives its readers nothing, and
//   resolution's Resolved condition names the field to fix;
// - the parts that hold the cluster still (maintenance windows, the workload guard) are read on
//   their own, so a mistake elsewhere cannot lift them; when they themselves do not validate they
//   read UNREADABLE, which their readers treat as the safe side;
// - the emergency stop is read from the raw spec, so it works whatever else is wrong;
// - the status is read part by part, conditions one by one: it has several writers (each step,
//   older and newer control planes), so one part out of bounds must not take the others with it.
import type * as z from 'zod';
import {
  type ClusterRuntimeSpec,
  type ClusterRuntimeStatus,
  ClusterRuntimeSpecSchema,
  ClusterRuntimeStatusSchema,
} from './clusterRuntime.ts';
import { type Condition, ConditionSchema } from './condition.ts';
import { type Maintenance, MaintenanceSchema } from './maintenance.ts';
import { type Workloads, WorkloadsSchema } from './workloads.ts';

export const UNREADABLE = 'unreadable';
export type Unreadable = typeof UNREADABLE;

export type SpecReading = { readonly readable: true; readonly spec: ClusterRuntimeSpec } | { readonly readable: false };

/** The whole spec with the API's defaults filled in, or that it does not validate. */
export function readSpec(raw: unknown): SpecReading {
  const parsed = ClusterRuntimeSpecSchema.safeParse(raw);
  return parsed.success ? { readable: true, spec: parsed.data } : { readable: false };
}

/** spec.maintenance on its own: undefined when not set. */
export function readMaintenance(rawSpec: unknown): Maintenance | undefined | Unreadable {
  const part = partOf(MaintenanceSchema.optional(), fieldOf(rawSpec, 'maintenance'));
  return part.ok ? part.value : UNREADABLE;
}

/** spec.workloads on its own: undefined when not set. */
export function readWorkloads(rawSpec: unknown): Workloads | undefined | Unreadable {
  const part = partOf(WorkloadsSchema.optional(), fieldOf(rawSpec, 'workloads'));
  return part.ok ? part.value : UNREADABLE;
}

/** spec.suspendEngine as the emergency stop reads it: only a literal true stops the engine. */
export function readSuspendEngine(rawSpec: unknown): boolean {
  return fieldOf(rawSpec, 'suspendEngine') === true;
}

/** The status's parts that validated; an unreadable part reads as absent, a bad condition as not there. */
export interface StatusReading {
  readonly conditions: readonly Condition[];
  readonly observedGeneration: number | undefined;
  readonly activePlan: string | undefined;
  readonly candidatePlan: string | undefined;
  readonly targetPlan: string | undefined;
  readonly discovery: ClusterRuntimeStatus['discovery'];
  readonly notifications: ClusterRuntimeStatus['notifications'];
}

const STATUS = ClusterRuntimeStatusSchema.shape;

export function readStatus(raw: unknown): StatusReading {
  const listed = fieldOf(raw, 'conditions');
  const conditions = Array.isArray(listed)
    ? listed.flatMap((c: unknown) => valueOrNone(partOf(ConditionSchema, c)))
    : [];
  const part = <T>(schema: z.ZodType<T>, key: string): T | undefined => {
    const read = partOf(schema, fieldOf(raw, key));
    return read.ok ? read.value : undefined;
  };
  return {
    conditions,
    observedGeneration: part(STATUS.observedGeneration, 'observedGeneration'),
    activePlan: part(STATUS.activePlan, 'activePlan'),
    candidatePlan: part(STATUS.candidatePlan, 'candidatePlan'),
    targetPlan: part(STATUS.targetPlan, 'targetPlan'),
    discovery: part(STATUS.discovery, 'discovery'),
    notifications: part(STATUS.notifications, 'notifications'),
  };
}

type Part<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

/** A result rather than a stand-in value: undefined is a valid "not set", not a failure. */
function partOf<T>(schema: z.ZodType<T>, value: unknown): Part<T> {
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
}

/** A valid part as a list of one, an unreadable one as none. */
function valueOrNone<T>(part: Part<T>): T[] {
  return part.ok ? [part.value] : [];
}

function fieldOf(raw: unknown, key: string): unknown {
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[key] : undefined;
}

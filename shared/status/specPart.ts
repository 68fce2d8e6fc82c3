// The part of a runtime's spec a step's conditions depend on. A step that declares one is woken
// only when that part changes, and records a digest of it beside its conditions; while the spec
// still has that digest, its conditions describe the runtime as it is, though a change elsewhere
// in the spec moved the generation past theirs (ADR 0003). So a change only one step reads costs
// that step's look alone, and the runtime still reads Ready once that look is written.
import { createHash } from 'node:crypto';
import type { SpecField } from '../api/clusterRuntime.ts';

/** Undefined fields mean the whole spec. */
export type SpecFields = readonly SpecField[] | undefined;

/** JSON with object keys sorted, so two reads of one spec give one digest whatever order the server kept. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
}

/** A digest of the named fields of `spec` (all of it when `fields` is undefined); a missing field counts as absent. */
export function specPartDigest(spec: unknown, fields: SpecFields): string {
  const source = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>) : {};
  const part = fields ? Object.fromEntries(fields.map((f) => [f, source[f] ?? null])) : source;
  return createHash('sha256')
    .update(JSON.stringify(canonical(part)))
    .digest('hex')
    .slice(0, 32);
}

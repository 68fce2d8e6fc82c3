// The plan digest: sha256 over the canonical JSON of the release set. Canonical means object
// keys sorted at every depth and no whitespace, so the same releases give the same bytes
// whichever way they were built (from a bundle, or back from the Applications).
import { createHash } from 'node:crypto';
import { type JsonValue, type ReleaseSet, sortReleases } from './release.ts';

function canonical(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    // No prototype, so a values key named __proto__ is an ordinary key and counts.
    const out = Object.create(null) as { [key: string]: JsonValue };
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = canonical(v);
    }
    return out;
  }
  return value as JsonValue;
}

export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

/** `sha256:<hex>` of the canonical release set. */
export function planDigest(releases: ReleaseSet): string {
  return `sha256:${createHash('sha256')
    .update(canonicalJson(sortReleases(releases)))
    .digest('hex')}`;
}

/** How many hex digits of the digest a plan's name carries. */
export const PLAN_NAME_DIGITS = 16;

/** `aicr-plan-<first 16 hex digits of the digest>`. */
export function planName(digest: string): string {
  return `aicr-plan-${digest.replace(/^sha256:/, '').slice(0, PLAN_NAME_DIGITS)}`;
}

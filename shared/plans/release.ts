// A release is one component of a plan as the Argo CD Application it becomes. The release set
// is exactly what the Applications carry, so a plan rebuilt from them has the same digest
// (docs/plans.md). Everything else AICR produced (the recipe, the inputs) lives beside it.
import * as z from 'zod';

const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A Helm chart in the cluster's registry, in the Helm-over-OCI form Argo CD's `type: helm` sources use. */
export const ChartSourceSchema = z.strictObject({
  /** `<registry host>/<repository>` without a scheme. */
  repoURL: z.string().min(1),
  chart: z.string().min(1),
  /** An exact chart version, never a range. */
  version: z.string().min(1),
  /**
   * The manifest digest the registry held at that version when the plan was made (SEC-5).
   * Absent only in plans made before digests were recorded; then nothing is checked.
   */
  digest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, { error: 'must be sha256: followed by 64 lowercase hex digits' })
    .optional(),
});
export type ChartSource = z.output<typeof ChartSourceSchema>;

export const ReleaseSchema = z.strictObject({
  /** The component's name: also the Application's name. */
  name: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .max(63),
  /** Where the release's resources go (the Application's destination namespace). */
  namespace: z.string().min(1),
  /** 0-based position in AICR's deploymentOrder. */
  order: z.int().min(0),
  /** The upstream chart, mirrored into the registry; absent for a component of raw manifests only. */
  chart: ChartSourceSchema.optional(),
  /** The component's raw manifests, packaged as a chart in the registry. */
  manifests: ChartSourceSchema.optional(),
  /** The chart's Helm values, inline on the Application. */
  values: z.record(z.string(), JsonValueSchema),
  /** Components this one needs first, sorted. */
  dependsOn: z.array(z.string()),
  /** Whether a person runs its steps (newer AICR); v0.11.1 components are never manual. */
  manual: z.boolean(),
  /** Steps AICR records for a manual component, in order. */
  steps: z.array(z.string()),
});
export type Release = z.output<typeof ReleaseSchema>;

/** The releases' sources that carry a recorded digest; plans made before digests were recorded have none. */
export function pinnedSources(release: Release): ChartSource[] {
  return [release.chart, release.manifests].filter((s): s is ChartSource => s?.digest !== undefined);
}

/** The release's charts without a recorded digest, which no Application can pin (SEC-9). */
export function unpinnedSources(release: Release): ChartSource[] {
  return [release.chart, release.manifests].filter((s): s is ChartSource => s !== undefined && s.digest === undefined);
}

/** The canonical release set: sorted by order, then name. */
export const ReleaseSetSchema = z.array(ReleaseSchema);
export type ReleaseSet = readonly Release[];

export function sortReleases(releases: readonly Release[]): Release[] {
  return [...releases].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

// What Argo CD holds for a runtime: the releases its owned Applications carry, and a digest of
// them that approval compares against (drift since the rollout was created).
import { createHash } from 'node:crypto';
import { ANNOTATION } from '../../api/constants.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { applicationsToReleases } from '../../plans/applications.ts';
import { canonicalJson } from '../../plans/digest.ts';
import type { Release } from '../../plans/release.ts';
import type { Inventory } from './assess.ts';

/**
 * Each Application's release by name, with only the digests Argo CD fetches by: an Application
 * written before pinning names its chart by version, so against a plan that pins it, it is a
 * change a rollout makes (with approval), never a silent rewrite (SEC-9). Read as a set first
 * (dependencies checked across it); when the set does not read back, each on its own, and one
 * that still does not counts as unknown content, which the assessment treats as changed.
 */
export function inventoryOf(apps: readonly GenericObject[]): Inventory {
  const whole = applicationsToReleases(apps, 'fetched');
  if (whole.ok) return new Map(whole.releases.map((r) => [r.name, r]));
  return new Map<string, Release | undefined>(
    apps.map((app) => {
      const one = applicationsToReleases([app], 'fetched');
      return [app.metadata.name, one.ok ? one.releases[0] : undefined];
    }),
  );
}

/**
 * What of an Application counts as drift: its identity, plan, source, values and destination, not
 * its sync policy or status.
 */
function driftFacts(app: GenericObject): unknown {
  const spec = (app as { spec?: Record<string, unknown> }).spec ?? {};
  return [
    app.metadata.name,
    app.metadata.uid,
    app.metadata.annotations?.[ANNOTATION.planDigest] ?? '',
    spec['source'] ?? null,
    spec['sources'] ?? null,
    spec['destination'] ?? null,
  ];
}

export function inventoryDigest(apps: readonly GenericObject[]): string {
  const facts = [...apps].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name)).map(driftFacts);
  return `sha256:${createHash('sha256').update(canonicalJson(facts)).digest('hex')}`;
}

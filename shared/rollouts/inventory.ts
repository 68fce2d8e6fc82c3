// What Argo CD holds for a runtime: its owned Applications, the releases they carry, and a
// digest of them that approval compares against (drift since the rollout was created).
import { createHash } from 'node:crypto';
import { ANNOTATION, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../api/constants.ts';
import { KubeRequestError } from '../errors.ts';
import { type GenericObject, KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import { applicationsToReleases } from '../plans/applications.ts';
import { canonicalJson } from '../plans/digest.ts';
import type { Release } from '../plans/release.ts';
import type { Inventory } from './assess.ts';

/** Every Application the control plane marks as its own, of any runtime; undefined while Argo CD's Application API is not served. */
export async function listManagedApplications(kube: KubePort): Promise<GenericObject[] | undefined> {
  try {
    const { items } = await kube.list(KIND.application, {
      namespace: NAMESPACES.argocd,
      labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
    });
    return items;
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 404) return undefined;
    throw err;
  }
}

/** The runtime's own Applications in Argo CD's namespace; undefined while Argo CD's Application API is not served. */
export async function listOwnedApplications(kube: KubePort, runtimeUID: string): Promise<GenericObject[] | undefined> {
  return (await listManagedApplications(kube))?.filter(
    (a) => a.metadata.annotations?.[ANNOTATION.runtimeUID] === runtimeUID,
  );
}

/** The runtime's own Applications in Argo CD's namespace; none while Argo CD's API is not installed. */
export async function ownedApplications(kube: KubePort, runtimeUID: string): Promise<GenericObject[]> {
  return (await listOwnedApplications(kube, runtimeUID)) ?? [];
}

/**
 * Each Application's release by name. Read as a set first (dependencies checked across it); when
 * the set does not read back, each on its own, and one that still does not counts as unknown
 * content, which the assessment treats as changed.
 */
export function inventoryOf(apps: readonly GenericObject[]): Inventory {
  const whole = applicationsToReleases(apps);
  if (whole.ok) return new Map(whole.releases.map((r) => [r.name, r]));
  return new Map<string, Release | undefined>(
    apps.map((app) => {
      const one = applicationsToReleases([app]);
      return [app.metadata.name, one.ok ? one.releases[0] : undefined];
    }),
  );
}

/** What of an Application counts as drift: its identity, plan, source, values and destination, not its sync policy or status. */
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

// The stage for rollouts that reach Argo CD: small charts in the test registry, Argo CD's
// repository Secret for it, plans written as resolution would, and a runtime whose resolution
// the test settles itself (Resolved=True naming the target, written as the resolve step), so
// only the rollout step runs and each test decides the target plan.
import { CONDITION, FIELD_MANAGER, NAMESPACES } from '../shared/api/constants.ts';
import { KIND } from '../shared/kube/kinds.ts';
import { planDigest, planName } from '../shared/plans/digest.ts';
import type { Plan } from '../shared/plans/plan.ts';
import type { Release } from '../shared/plans/release.ts';
import { planConfigMap } from '../shared/plans/store.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { ROLLOUT_CHARTS_PREFIX, dockerConfig } from './configuration.ts';
import { stepKube } from './controlPlane.ts';
import { testEnv } from './env.ts';
import { getRuntime } from './runtime.ts';
import { pushArtifact } from '../shared/oci/push.ts';
import { HELM_CHART_LAYER, HELM_CONFIG } from '../shared/api/helmMediaTypes.ts';
import { type FixtureContent, packageFixture } from './fixtureCharts.ts';

export const CHART_PREFIX = ROLLOUT_CHARTS_PREFIX;

/** What this process pushed, `<repoURL>/<chart>:<version>` to manifest digest, for chartRelease to pin. */
const pushedDigests = new Map<string, string>();

/**
 * Pushes `<prefix>/<chart>:<version>` as a Helm OCI artifact: a fixture chart Argo CD renders
 * and deploys for real (harness/fixtureCharts.ts). `versionInManifests: false` makes
 * versions that render the same manifests. Returns the manifest digest, as resolution records it.
 */
export async function pushChart(
  chart: string,
  version: string,
  content: FixtureContent = {},
  repository = CHART_PREFIX,
): Promise<string> {
  const tgz = packageFixture({ chart, version }, content);
  const config = new TextEncoder().encode(JSON.stringify({ apiVersion: 'v2', name: chart, version }));
  const target = `${testEnv().TESTENV_REGISTRY}/${repository}/${chart}:${version}`;
  const { digest } = await pushArtifact(
    target,
    { config: { mediaType: HELM_CONFIG, bytes: config }, layers: [{ mediaType: HELM_CHART_LAYER, bytes: tgz }] },
    { plainHTTP: true, dockerConfig: dockerConfig() },
  );
  pushedDigests.set(target, digest);
  return digest;
}

/**
 * A release of one chart from the test registry, pinned to the digest this process last pushed for
 * it (as resolution pins what it mirrors); unpinned when it was not pushed here.
 */
export function chartRelease(name: string, order: number, version: string, extra: Partial<Release> = {}): Release {
  const repoURL = `${testEnv().TESTENV_REGISTRY}/${CHART_PREFIX}`;
  const digest = pushedDigests.get(`${repoURL}/${name}:${version}`);
  return {
    name,
    namespace: `ns-${name}`,
    order,
    chart: { repoURL, chart: name, version, ...(digest ? { digest } : {}) },
    values: {},
    dependsOn: [],
    manual: false,
    steps: [],
    ...extra,
  };
}

/**
 * Writes the plan as resolution would (its own identity), with the recipe it records if given, and
 * returns its name.
 */
export async function storePlan(
  runtimeUID: string,
  releases: Release[],
  recipe?: string,
): Promise<{ name: string; plan: Plan }> {
  const plan: Plan = {
    digest: planDigest(releases),
    releases,
    runtimeUID,
    ...(recipe === undefined ? {} : { recipe }),
  };
  const name = planName(plan.digest);
  const asResolve = stepKube('resolve');
  if (!(await asResolve.get(KIND.configMap, name, NAMESPACES.system)))
    await asResolve.create(KIND.configMap, planConfigMap(plan));
  return { name, plan };
}

/** Settles resolution on `plan`, as the resolve step would report it. */
export async function target(plan: string): Promise<void> {
  const rt = await getRuntime();
  if (!rt) throw new Error('no runtime');
  const resolved = {
    type: CONDITION.resolved,
    status: 'True',
    reason: 'Resolved',
    message: `plan ${plan} (test stage); it is the target`,
    lastTransitionTime: kubeTime(new Date()),
    observedGeneration: rt.metadata.generation ?? 0,
  };
  await stepKube('resolve').applyStatus(
    KIND.clusterRuntime,
    { metadata: { name: rt.metadata.name }, status: { conditions: [resolved], targetPlan: plan, candidatePlan: plan } },
    { fieldManager: FIELD_MANAGER.resolve, force: true },
  );
}

// The stage for rollouts that reach Argo CD: small charts in the test registry, Argo CD's
// repo-creds Secret for it, plans written as resolution would, and a runtime whose resolution
// the test settles itself (Resolved=True naming the target, written as the resolve step), so
// only the rollout step runs and each test decides the target plan.
import { CONDITION, FIELD_MANAGER, NAMESPACES } from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { planDigest, planName } from '../../shared/plans/digest.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import type { Release } from '../../shared/plans/release.ts';
import { planConfigMap } from '../../shared/plans/store.ts';
import { kubeTime } from '../../shared/status/conditions.ts';
import { stepKube } from './controlPlane.ts';
import { testEnv } from './env.ts';
import { pushBlob, pushManifest } from './oci.ts';
import { getRuntime } from './runtime.ts';

export const CHART_PREFIX = 'aicr/rollout-charts';
const HELM_CONFIG = new TextEncoder().encode('{"name":"fixture","version":"0.0.0","apiVersion":"v2"}');

function registryBase(): string {
  return `http://${testEnv().TESTENV_REGISTRY}`;
}

/** Pushes `<prefix>/<chart>:<version>` as a Helm OCI artifact (its content is never rendered). */
export async function pushChart(chart: string, version: string): Promise<void> {
  const base = registryBase();
  const repo = `${CHART_PREFIX}/${chart}`;
  const layerBytes = new TextEncoder().encode(`${chart}-${version}`);
  const layer = { digest: await pushBlob(base, repo, layerBytes), size: layerBytes.length };
  const config = { digest: await pushBlob(base, repo, HELM_CONFIG), size: HELM_CONFIG.length };
  await pushManifest(base, repo, version, { layer, config, layerMediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip' });
}

/** A release of one chart from the test registry. */
export function chartRelease(name: string, order: number, version: string, extra: Partial<Release> = {}): Release {
  return { name, namespace: `ns-${name}`, order, chart: { repoURL: `${testEnv().TESTENV_REGISTRY}/${CHART_PREFIX}`, chart: name, version }, values: {}, dependsOn: [], manual: false, steps: [], ...extra };
}

/** Writes the plan as resolution would (its own identity), with the recipe it records if given, and returns its name. */
export async function storePlan(runtimeUID: string, releases: Release[], recipe?: string): Promise<{ name: string; plan: Plan }> {
  const plan: Plan = { digest: planDigest(releases), releases, runtimeUID, ...(recipe === undefined ? {} : { recipe }) };
  const name = planName(plan.digest);
  const asResolve = stepKube('resolve');
  if (!(await asResolve.get(KIND.configMap, name, NAMESPACES.system))) await asResolve.create(KIND.configMap, planConfigMap(plan));
  return { name, plan };
}

/** Settles resolution on `plan`, as the resolve step would report it. */
export async function target(plan: string): Promise<void> {
  const rt = await getRuntime();
  if (!rt) throw new Error('no runtime');
  const resolved = { type: CONDITION.resolved, status: 'True', reason: 'Resolved', message: `plan ${plan} (test stage); it is the target`, lastTransitionTime: kubeTime(new Date()), observedGeneration: rt.metadata.generation ?? 0 };
  await stepKube('resolve').applyStatus(KIND.clusterRuntime, { metadata: { name: rt.metadata.name }, status: { conditions: [resolved], targetPlan: plan, candidatePlan: plan } }, { fieldManager: FIELD_MANAGER.resolve, force: true });
}

// The plan phase of resolution: from the bundle a render pushed to the candidate plan in
// aicr-system. The render record remembers the plan built from its bundle, so a reconcile with
// unchanged inputs reads one ConfigMap and pulls nothing; a plan deleted by a person is built
// again from the same bundle.
import type { ClusterRuntimeSpec } from '../../api/clusterRuntime.ts';
import { LABEL, NAMESPACES, ROLE } from '../../api/constants.ts';
import { type Bundle, RECORD_PLAN_KEY, RECORD_REFUSAL_KEY } from '../../aicr/renderStage.ts';
import { STAGE_NAMESPACE, renderRecordName } from '../../aicr/stages.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { ConflictError, KubeRequestError } from '../../errors.ts';
import { KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { planDigest } from '../../plans/digest.ts';
import type { Plan, PlanInputs } from '../../plans/plan.ts';
import { plansToRetire } from '../../plans/retention.ts';
import { PlanTooLargeError, type PlanConfigMap, planConfigMap, readPlanConfigMap } from '../../plans/store.ts';
import type { Reason } from '../../api/reasons.ts';
import { planUnreadableCandidate } from '../../status/reasonMessages.resolved.ts';
import { readBundle } from './bundleFiles.ts';
import type { Release } from '../../plans/release.ts';
import { mirrorManifests } from './mirror.ts';
import { chartNames, ensureRepositories } from './repositories.ts';
import type { RegistryAccess } from './registryAccess.ts';
import { mirrorUpstream } from './mirrorUpstream.ts';

export type Candidate =
  | { readonly state: 'ready'; readonly plan: Plan; readonly written: boolean }
  | { readonly state: 'failed'; readonly reason: Reason; readonly message: string }
  /** The registry or its credentials are not there yet; both clear by themselves (REG-1, REG-3). */
  | { readonly state: 'retrying'; readonly reason: Reason; readonly message: string };

export interface CandidateInputs {
  readonly runtimeUID: string;
  readonly spec: ClusterRuntimeSpec;
  readonly configuration: Configuration;
  readonly bundle: Bundle;
  readonly snapshot: string;
  readonly overrides: readonly string[];
  /** The runtime's resnapshot request now ('' when none): a refused pull waits for a new one. */
  readonly resnapshot: string;
  /** The registry's credentials (and in aws mode a repository creator), read only when a bundle is to be pulled. */
  readonly access: () => Promise<RegistryAccess>;
}

/** The plan the record names, when it is there, readable and this runtime's. */
async function recorded(kube: KubePort, c: CandidateInputs): Promise<Candidate | undefined> {
  if (!c.bundle.plan) return undefined;
  const cm = await kube.get(KIND.configMap, c.bundle.plan, NAMESPACES.system);
  if (!cm) return undefined;
  const read = readPlanConfigMap(cm);
  if (!read.ok)
    return {
      state: 'failed',
      reason: 'PlanUnreadable',
      message: planUnreadableCandidate(read.problem),
    };
  // A plan of an earlier runtime of the same name is resolved again for this one (PLAN-5).
  return read.plan.runtimeUID === c.runtimeUID ? { state: 'ready', plan: read.plan, written: false } : undefined;
}

function criteriaOf(criteria: ClusterRuntimeSpec['criteria']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(criteria)) if (typeof value === 'string') out[key] = value;
  return out;
}

function planFrom(c: CandidateInputs, releases: Release[], recipeText: string): Plan {
  const inputs: PlanInputs = {
    aicrVersion: c.spec.aicrVersion,
    snapshot: c.snapshot,
    criteria: criteriaOf(c.spec.criteria),
    overrides: [...c.overrides],
    bundle: c.bundle.reference,
  };
  return { digest: planDigest(releases), releases, runtimeUID: c.runtimeUID, recipe: recipeText, inputs };
}

/** Creates the plan, or replaces one of the same digest that another runtime's resolution (or a restore) left. */
async function store(kube: KubePort, cm: PlanConfigMap): Promise<void> {
  try {
    await kube.create(KIND.configMap, cm);
    return;
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
  // Unconditional: the digest in the name fixes the releases, so whichever copy lands is right
  // for them, and the runtime it names is the one resolving now (PLAN-5).
  try {
    await kube.update(KIND.configMap, cm);
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 404)
      throw new ConflictError(`plan ${cm.metadata.name} went while it was being written; trying again`);
    throw err;
  }
}

async function recordRefusal(kube: KubePort, c: CandidateInputs, message: string): Promise<void> {
  const data = { [RECORD_REFUSAL_KEY.message]: message, [RECORD_REFUSAL_KEY.resnapshot]: c.resnapshot };
  await kube.patch(KIND.configMap, renderRecordName(c.bundle.hash), STAGE_NAMESPACE.render, { data });
}

type Failure = { readonly ok: false; readonly retry: boolean; readonly reason: Reason; readonly message: string };

/** What the runtime shows for a failed pull or push; a refusal is remembered until a resnapshot. */
async function notCandidate(kube: KubePort, c: CandidateInputs, f: Failure): Promise<Candidate> {
  if (f.reason === 'Unauthorized') await recordRefusal(kube, c, f.message);
  return { state: f.retry ? 'retrying' : 'failed', reason: f.reason, message: f.message };
}

/** Stores the plan and names it in the render record, so the next reconcile reads it instead of pulling. */
async function writePlan(kube: KubePort, c: CandidateInputs, plan: Plan): Promise<Candidate> {
  let cm: PlanConfigMap;
  try {
    cm = planConfigMap(plan);
  } catch (err) {
    if (err instanceof PlanTooLargeError) return { state: 'failed', reason: 'PlanTooLarge', message: err.message };
    throw err;
  }
  await store(kube, cm);
  await kube.patch(KIND.configMap, renderRecordName(c.bundle.hash), STAGE_NAMESPACE.render, {
    data: { [RECORD_PLAN_KEY]: cm.metadata.name },
  });
  return { state: 'ready', plan, written: true };
}

/** Each release with its manifests chart's digest from one mirroring and its upstream chart's from the other. */
function withDigests(manifests: readonly Release[], charts: readonly Release[]): Release[] {
  const byName = new Map(charts.map((r) => [r.name, r.chart]));
  return manifests.map((r) => {
    const chart = byName.get(r.name);
    return chart ? { ...r, chart } : r;
  });
}

/** Resolves the candidate plan for a rendered bundle; writes it when it is not there yet. */
export async function resolveCandidate(kube: KubePort, c: CandidateInputs): Promise<Candidate> {
  const found = await recorded(kube, c);
  if (found) return found;
  // A refusal stalls until a person requests a snapshot (REG-2); the registry is not asked again before.
  if (c.bundle.refused && c.bundle.refused.resnapshot === c.resnapshot)
    return { state: 'failed', reason: 'Unauthorized', message: c.bundle.refused.message };
  const access = await c.access();
  if (!access.ok)
    return { state: access.retry ? 'retrying' : 'failed', reason: access.reason, message: access.message };
  const { dockerConfig, createRepository } = access;
  const read = await readBundle(c.configuration, dockerConfig, c.bundle.reference);
  if (!read.ok) return await notCandidate(kube, c, read);
  // The plan is written only once the charts it names are in the registry, in repositories that exist.
  if (createRepository) {
    const made = await ensureRepositories(
      createRepository,
      c.configuration.registry.repository,
      chartNames(read.releases),
    );
    if (!made.ok) return await notCandidate(kube, c, made);
  }
  // The manifests charts and the upstream charts go to different repositories: both at once.
  const [mirrored, copied] = await Promise.all([
    mirrorManifests({
      registry: c.configuration.registry,
      dockerConfig,
      files: read.files,
      releases: read.releases,
    }),
    mirrorUpstream({
      registry: c.configuration.registry,
      dockerConfig,
      recipeText: read.recipeText,
      releases: read.releases,
    }),
  ]);
  if (!mirrored.ok) return await notCandidate(kube, c, mirrored);
  if (!copied.ok) return await notCandidate(kube, c, copied);
  // The releases as mirrored carry each chart's digest, so the plan digest pins the bytes (SEC-5).
  return await writePlan(kube, c, planFrom(c, withDigests(mirrored.releases, copied.releases), read.recipeText));
}

/** Removes plans beyond what configuration keeps; the plans in use are never removed (PLAN-8). */
export async function retirePlans(kube: KubePort, inUse: ReadonlySet<string>, keep: number): Promise<string[]> {
  const plans = await kube.list(KIND.configMap, {
    namespace: NAMESPACES.system,
    labelSelector: `${LABEL.role}=${ROLE.plan}`,
  });
  const retired = plansToRetire(plans.items, inUse, keep);
  for (const name of retired) await kube.delete(KIND.configMap, name, NAMESPACES.system);
  return retired;
}

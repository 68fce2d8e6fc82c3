// Observe: everything the rollout step decides from, read once per look. The spec is parsed once,
// the configuration, the runtime's rollouts and the managed Applications are read in one round
// trip, then Argo CD's state and the one plan the look needs: the target while the runtime lives,
// the active plan while it is being deleted. Nothing here writes.
import { ANNOTATION, CONDITION, NAMESPACES } from '../../api/constants.ts';
import { lookConfiguration } from '../../look/configuration.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { type GenericObject, KIND, type RuntimeObject } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import type { Plan } from '../../plans/plan.ts';
import { readPlanConfigMap } from '../../plans/store.ts';
import { type Engine, engineState } from './engine.ts';
import { listManagedApplications } from './applications.ts';
import { listRolloutsRead } from './rollouts.ts';
import { inventoryDigest } from '../rules/inventory.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import { newerObjects } from '../rules/schemaVersions.ts';
import type { StepContext } from '../../look/contract.ts';
import { type RolloutSettings, settingsOf } from '../rules/settings.ts';
import { statusPlan } from '../../status/statusPlans.ts';

export type PlanRead =
  | { readonly state: 'read'; readonly plan: Plan }
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly problem: string };

export interface RolloutLook {
  readonly runtime: RuntimeObject;
  readonly settings: RolloutSettings;
  readonly configuration: Configuration;
  /** The runtime's rollouts, oldest first. */
  readonly rollouts: readonly RolloutObject[];
  /** Every rollout, whichever runtime made it: the record retention bounds (SEC-11). */
  readonly records: readonly RolloutObject[];
  /** The managed Applications this runtime owns; empty when the Application API is not served. */
  readonly apps: readonly GenericObject[];
  /** Digest of `apps`, which approvals and drift are judged against. */
  readonly inventory: string;
  /** Whether Argo CD's Application API answered the listing. */
  readonly served: boolean;
  /** Managed Applications other runtimes wrote, by the runtime UID they record. */
  readonly foreign: ReadonlyMap<string, GenericObject[]>;
  /** Rollouts a newer control plane wrote (PLAN-2): while any exists, nothing is decided or written. */
  readonly newer: readonly string[];
  /** Argo CD's state as the cluster shows it, before the emergency stop is counted. */
  readonly engine: Engine;
  readonly targetPlan?: string;
  readonly activePlan?: string;
  /** The target plan, read while the runtime is not being deleted. */
  readonly target?: PlanRead;
  /** The active plan, read while the runtime is being deleted. */
  readonly active?: PlanRead;
  /** Whether resolution has settled (Resolved is True). */
  readonly resolved: boolean;
  /** Why the registry credentials are stale, as the runtime's EngineAvailable said on the last look. */
  readonly staleCredentials?: string;
}

const NO_UID = '(none)';

/** Managed Applications of other runtimes, by the runtime UID they record. */
export function foreignOf(managed: readonly GenericObject[], runtimeUID: string): Map<string, GenericObject[]> {
  const out = new Map<string, GenericObject[]>();
  for (const app of managed) {
    const uid = app.metadata.annotations?.[ANNOTATION.runtimeUID] || NO_UID;
    if (uid !== runtimeUID) out.set(uid, [...(out.get(uid) ?? []), app]);
  }
  return out;
}

export async function readPlan(kube: KubePort, name: string): Promise<PlanRead> {
  const cm = await kube.get(KIND.configMap, name, NAMESPACES.system);
  if (!cm) return { state: 'missing' };
  const read = readPlanConfigMap(cm);
  return read.ok ? { state: 'read', plan: read.plan } : { state: 'unreadable', problem: read.problem };
}

function staleOf(runtime: RuntimeObject): string | undefined {
  const c = runtime.status?.conditions?.find((x) => x.type === CONDITION.engineAvailable);
  return c?.reason === 'RegistryCredentialsStale' ? c.message : undefined;
}

function defined<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function plansOf(
  targetPlan: string | undefined,
  activePlan: string | undefined,
  plan: PlanRead | undefined,
  deleting: boolean,
): Pick<RolloutLook, 'targetPlan' | 'activePlan' | 'target' | 'active'> {
  return {
    ...defined('targetPlan', targetPlan),
    ...defined('activePlan', activePlan),
    ...defined(deleting ? 'active' : 'target', plan),
  };
}

export async function observe(ctx: StepContext): Promise<RolloutLook> {
  const { runtime } = ctx;
  const uid = runtime.metadata.uid;
  const [configuration, read, managed] = await Promise.all([
    lookConfiguration(ctx),
    listRolloutsRead(ctx.kube, uid),
    listManagedApplications(ctx.kube),
  ]);
  const served = managed !== undefined;
  const apps = (managed ?? []).filter((a) => a.metadata.annotations?.[ANNOTATION.runtimeUID] === uid);
  const targetPlan = statusPlan(runtime, 'targetPlan');
  const activePlan = statusPlan(runtime, 'activePlan');
  const deleting = Boolean(runtime.metadata.deletionTimestamp);
  const wanted = deleting ? activePlan : targetPlan;
  const [engine, plan] = await Promise.all([
    engineState(ctx.kube, configuration, { now: ctx.now(), staleWithinMs: ctx.timings.tokenStaleWithinMs, served }),
    wanted ? readPlan(ctx.kube, wanted) : Promise.resolve(undefined),
  ]);
  return {
    runtime,
    settings: settingsOf(runtime),
    configuration,
    rollouts: read.rollouts,
    records: read.records,
    apps,
    inventory: inventoryDigest(apps),
    served,
    foreign: foreignOf(managed ?? [], uid),
    newer: newerObjects(read.listed, []),
    engine,
    ...plansOf(targetPlan, activePlan, plan, deleting),
    resolved: runtime.status?.conditions?.some((c) => c.type === CONDITION.resolved && c.status === 'True') ?? false,
    ...defined('staleCredentials', staleOf(runtime)),
  };
}

// Whether Argo CD can take writes, judged from the cluster alone (ENG-1): its Application API
// is served, and (self-managed) its application controller's workload has a ready, current
// replica. The EKS Argo CD capability has no workload in the cluster to read, so there the
// served API is all the cluster can say. Nothing is written to Argo CD while this is false.
import { ARGOCD, NAMESPACES } from '../../api/constants.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { KubeRequestError } from '../../errors.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import { type Freshness, staleCredentials } from './registryFreshness.ts';
import {
  engineUnavailableControllerDown,
  engineUnavailableNoController,
  engineUnavailableNotServed,
} from '../../status/reasonMessages.engine.ts';

export type Engine =
  | { readonly available: true; readonly message: string }
  /**
   * `stale`: Argo CD is up but its registry token is stale (RegistryCredentialsStale, REG-4).
   * `suspension`: the emergency stop holds it (spec.suspendEngine, ENG-2), or could not be switched.
   */
  | {
      readonly available: false;
      readonly message: string;
      readonly stale?: true;
      readonly suspension?: 'EngineSuspended' | 'EngineSuspensionRefused';
    };

const [APPLICATION_GROUP = '', APPLICATION_VERSION = ''] = KIND.application.apiVersion.split('/');
const APPLICATION_API = `${KIND.application.plural}.${APPLICATION_GROUP}/${APPLICATION_VERSION}`;

// A selector no Application carries: the answer says whether the API is served, without the list.
async function applicationsServed(kube: KubePort): Promise<boolean> {
  try {
    await kube.list(KIND.application, { namespace: NAMESPACES.argocd, labelSelector: ARGOCD.controllerSelector });
    return true;
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 404) return false;
    throw err;
  }
}

interface Workload {
  readonly kind: string;
  readonly name: string;
  readonly ready: number;
  readonly wanted: number;
  readonly current: boolean;
}

function workloadOf(kind: string, obj: GenericObject): Workload {
  const o = obj as { spec?: { replicas?: number }; status?: { readyReplicas?: number; observedGeneration?: number } };
  const current = (o.status?.observedGeneration ?? -1) >= (obj.metadata.generation ?? 0);
  return { kind, name: obj.metadata.name, ready: o.status?.readyReplicas ?? 0, wanted: o.spec?.replicas ?? 1, current };
}

const isUp = (w: Workload): boolean => w.ready >= 1 && w.current;

/**
 * The controller's workloads: its StatefulSet, as Argo CD installs it, and only when that is not
 * up the Deployments too (an install that runs the controller as one), so a look at a healthy
 * Argo CD costs one list.
 */
async function controllerWorkloads(kube: KubePort): Promise<Workload[]> {
  const selection = { namespace: NAMESPACES.argocd, labelSelector: ARGOCD.controllerSelector };
  const sets = (await kube.list(KIND.statefulSet, selection)).items.map((o) => workloadOf('StatefulSet', o));
  if (sets.some(isUp)) return sets;
  const deployments = (await kube.list(KIND.deployment, selection)).items.map((o) => workloadOf('Deployment', o));
  return [...sets, ...deployments];
}

function describeWorkload(w: Workload): string {
  const behind = w.current ? '' : ', and its controller has not caught up with its latest spec';
  return `${w.kind} ${w.name} has ${w.ready} ready of ${w.wanted}${behind}`;
}

async function controllerUp(kube: KubePort): Promise<Engine> {
  const workloads = await controllerWorkloads(kube);
  if (workloads.length === 0) {
    return { available: false, message: engineUnavailableNoController() };
  }
  const up = workloads.find(isUp);
  if (up) return { available: true, message: `Argo CD's application controller is up (${describeWorkload(up)})` };
  return { available: false, message: engineUnavailableControllerDown(workloads.map(describeWorkload)) };
}

/**
 * Whether Argo CD can take the control plane's writes now, and why not. `served`: whether the
 * Application API answered a list this look already made, which saves asking again.
 */
export async function engineAvailability(
  kube: KubePort,
  configuration: Configuration,
  served?: boolean,
): Promise<Engine> {
  if (!(served ?? (await applicationsServed(kube)))) {
    return { available: false, message: engineUnavailableNotServed(APPLICATION_API) };
  }
  if (configuration.argocd.mode === 'managed')
    return {
      available: true,
      message:
        "Argo CD's Application API is served (the EKS Argo CD capability: no controller workload to read in the " +
        'cluster)',
    };
  return controllerUp(kube);
}

/** Argo CD's availability, and once it is up, whether the registry token it fetches charts with is fresh. */
export async function engineState(
  kube: KubePort,
  configuration: Configuration,
  freshness: Freshness & { readonly served?: boolean },
): Promise<Engine> {
  const engine = await engineAvailability(kube, configuration, freshness.served);
  if (!engine.available) return engine;
  if (configuration.argocd.mode === 'managed' && configuration.registry.auth.mode === 'aws') {
    return {
      available: true,
      message:
        `${engine.message}; its registry credentials are handled by AWS ` +
        '(the capability pulls from ECR with its own role), so the control plane writes none',
    };
  }
  const stale = await staleCredentials(kube, configuration, freshness);
  return stale === undefined ? engine : { available: false, message: stale, stale: true };
}

// Argo CD Applications in the test cluster, reconciled there by Argo CD's own application
// controller and repo-server (test/env/argocd/install.ts): fixture charts pushed to the test
// registry, repository Secrets, Applications written and read as the admin, and watch-based
// waits on them.
import {
  AppsV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  PatchStrategy,
  type V1Secret,
  type V1StatefulSet,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { argoCdCredentialSecret } from '../../harness/configuration.ts';
import { core, readOrUndefined, waitFor } from './cluster.ts';
import { adminKubeConfig } from '../../harness/env.ts';
import type { Application } from '../env/argocd/types.ts';

export type { Application };
export const ARGOCD_NS = 'argocd';
const CONTROLLER = 'argocd-application-controller';
/** The field manager of the tests' own writes to Applications. */
export const TEST_MANAGER = 'aicr-argocd-tests';
const target = { group: 'argoproj.io', version: 'v1alpha1', namespace: ARGOCD_NS, plural: 'applications' };
const custom = (): CustomObjectsApi => adminKubeConfig().makeApiClient(CustomObjectsApi);

/** Creates an Argo CD credential Secret in argocd (see argoCdCredentialSecret); returns a remover. */
export async function repositorySecret(
  name: string,
  url: string,
  type: 'repository' | 'repo-creds' = 'repository',
): Promise<() => Promise<void>> {
  await core().createNamespacedSecret({
    namespace: ARGOCD_NS,
    body: argoCdCredentialSecret(name, url, type) as V1Secret,
  });
  return async () => void (await readOrUndefined(() => core().deleteNamespacedSecret({ name, namespace: ARGOCD_NS })));
}

export async function createApp(
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Promise<Application> {
  const body = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { ...metadata, name, namespace: ARGOCD_NS },
    spec,
  };
  return (await custom().createNamespacedCustomObject({ ...target, body, fieldManager: TEST_MANAGER })) as Application;
}

export async function readApp(name: string): Promise<Application | undefined> {
  return readOrUndefined(async () => (await custom().getNamespacedCustomObject({ ...target, name })) as Application);
}

export async function patchApp(name: string, patch: Record<string, unknown>): Promise<Application> {
  const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return (await custom().patchNamespacedCustomObject(
    { ...target, name, body: patch, fieldManager: TEST_MANAGER },
    options,
  )) as Application;
}

export async function deleteApp(name: string): Promise<void> {
  await readOrUndefined(() => custom().deleteNamespacedCustomObject({ ...target, name }));
}

/** Waits, by watching, until the Application satisfies `until` (undefined: it is gone). */
export async function appReaches(
  name: string,
  what: string,
  until: (app: Application | undefined) => boolean,
  timeoutMs = 15_000,
): Promise<Application | undefined> {
  // Applications are read as plain JSON (timestamps stay strings), which the watch helper's object type does not describe.
  const last = await waitFor<KubernetesObject>({
    path: `/apis/argoproj.io/v1alpha1/namespaces/${ARGOCD_NS}/applications`,
    name,
    what: `application ${name} ${what}`,
    read: async () => (await readApp(name)) as unknown as KubernetesObject | undefined,
    until: (o) => until(o as unknown as Application | undefined),
    timeoutMs,
  });
  return last as unknown as Application | undefined;
}

export function readStatefulSet(): Promise<V1StatefulSet | undefined> {
  return readOrUndefined(() =>
    adminKubeConfig().makeApiClient(AppsV1Api).readNamespacedStatefulSet({ name: CONTROLLER, namespace: ARGOCD_NS }),
  );
}

/** Waits until Argo CD's application controller StatefulSet reports its one replica ready. */
export async function argoCdReady(): Promise<void> {
  await waitFor<V1StatefulSet>({
    path: `/apis/apps/v1/namespaces/${ARGOCD_NS}/statefulsets`,
    name: CONTROLLER,
    what: "Argo CD's application controller to be ready",
    read: readStatefulSet,
    until: (s) => (s?.status?.readyReplicas ?? 0) >= 1,
    timeoutMs: 60_000,
  });
}

/** Waits until the application controller's Pod is gone (its process has exited and the Pod object is deleted) and its StatefulSet says so. */
export async function argoCdPodGone(): Promise<void> {
  const name = `${CONTROLLER}-0`;
  await waitFor({
    path: `/api/v1/namespaces/${ARGOCD_NS}/pods`,
    name,
    what: "Argo CD's application controller Pod to be gone",
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: ARGOCD_NS })),
    until: (p) => p === undefined,
    timeoutMs: 60_000,
  });
  // The StatefulSet's status lags its Pod: waiting here keeps a later argoCdReady from reading the old count.
  await waitFor<V1StatefulSet>({
    path: `/apis/apps/v1/namespaces/${ARGOCD_NS}/statefulsets`,
    name: CONTROLLER,
    what: "Argo CD's application controller StatefulSet to report no ready replica",
    read: readStatefulSet,
    until: (s) => (s?.status?.readyReplicas ?? 0) === 0,
    timeoutMs: 60_000,
  });
}

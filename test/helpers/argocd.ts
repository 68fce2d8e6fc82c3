// Argo CD Applications in the test cluster, reconciled there by the Argo CD application
// controller stand-in (test/env/argocd/): charts pushed to the test registry, repo-creds
// Secrets, Applications written and read as the admin, and watch-based waits on them.
import { randomBytes } from 'node:crypto';
import { AppsV1Api, CustomObjectsApi, type KubernetesObject, PatchStrategy, type V1StatefulSet, setHeaderOptions } from '@kubernetes/client-node';
import { core, readOrUndefined, waitFor } from './cluster.ts';
import { adminKubeConfig, testEnv } from './env.ts';
import { pushBlob, pushManifest } from './oci.ts';
import type { Application } from '../env/argocd/types.ts';

export type { Application };
export const ARGOCD_NS = 'argocd';
const CONTROLLER = 'argocd-application-controller';
/** The field manager of the tests' own writes, to find their time in managedFields. */
export const TEST_MANAGER = 'aicr-argocd-tests';
const target = { group: 'argoproj.io', version: 'v1alpha1', namespace: ARGOCD_NS, plural: 'applications' };
const custom = (): CustomObjectsApi => adminKubeConfig().makeApiClient(CustomObjectsApi);

/** Pushes a stand-in chart (an OCI manifest with one small layer) as `<repo>:<version>` to the test registry. */
export async function pushChart(repo: string, version: string): Promise<void> {
  const base = `http://${testEnv().TESTENV_REGISTRY}`;
  const config = new TextEncoder().encode('{}');
  const layer = new Uint8Array(randomBytes(64));
  const configDigest = await pushBlob(base, repo, config);
  const layerDigest = await pushBlob(base, repo, layer);
  await pushManifest(base, repo, version, {
    config: { digest: configDigest, size: config.length },
    layer: { digest: layerDigest, size: layer.length },
    layerMediaType: 'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
  });
}

/** A repo-creds Secret in argocd for URLs starting with `url`, plain HTTP; returns a remover. */
export async function repoCreds(name: string, url: string, password = testEnv().TESTENV_REGISTRY_PASSWORD): Promise<() => Promise<void>> {
  await core().createNamespacedSecret({
    namespace: ARGOCD_NS,
    body: {
      metadata: { name, labels: { 'argocd.argoproj.io/secret-type': 'repo-creds' } },
      stringData: { url, type: 'helm', enableOCI: 'true', insecureOCIForceHttp: 'true', username: testEnv().TESTENV_REGISTRY_USER, password },
    },
  });
  return async () => void (await core().deleteNamespacedSecret({ name, namespace: ARGOCD_NS }));
}

export async function createApp(name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): Promise<Application> {
  const body = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { ...metadata, name, namespace: ARGOCD_NS }, spec };
  return (await custom().createNamespacedCustomObject({ ...target, body, fieldManager: TEST_MANAGER })) as Application;
}

export async function readApp(name: string): Promise<Application | undefined> {
  return readOrUndefined(async () => (await custom().getNamespacedCustomObject({ ...target, name })) as Application);
}

export async function patchApp(name: string, patch: Record<string, unknown>): Promise<Application> {
  const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return (await custom().patchNamespacedCustomObject({ ...target, name, body: patch, fieldManager: TEST_MANAGER }, options)) as Application;
}

export async function deleteApp(name: string): Promise<void> {
  await readOrUndefined(() => custom().deleteNamespacedCustomObject({ ...target, name }));
}

/** Waits, by watching, until the Application satisfies `until` (undefined: it is gone). */
export async function appReaches(name: string, what: string, until: (app: Application | undefined) => boolean, timeoutMs = 15_000): Promise<Application | undefined> {
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

/** When the tests' own last write to the Application happened, per its managedFields (second precision). */
export function lastTestWrite(app: Application | undefined): number {
  const times = (app?.metadata.managedFields ?? []).filter((f) => f.manager === TEST_MANAGER).map((f) => Date.parse(f.time ?? ''));
  return Math.max(...times);
}

export function readStatefulSet(): Promise<V1StatefulSet | undefined> {
  return readOrUndefined(() => adminKubeConfig().makeApiClient(AppsV1Api).readNamespacedStatefulSet({ name: CONTROLLER, namespace: ARGOCD_NS }));
}

/** Waits until the stand-in's StatefulSet reports its one replica ready. */
export async function argoCdReady(): Promise<void> {
  await waitFor<V1StatefulSet>({
    path: `/apis/apps/v1/namespaces/${ARGOCD_NS}/statefulsets`,
    name: CONTROLLER,
    what: 'the Argo CD stand-in to be ready',
    read: readStatefulSet,
    until: (s) => (s?.status?.readyReplicas ?? 0) >= 1,
    timeoutMs: 60_000,
  });
}

/** Waits until the stand-in's Pod is gone (its process has exited and the Pod object is deleted). */
export async function argoCdPodGone(): Promise<void> {
  const name = `${CONTROLLER}-0`;
  await waitFor({
    path: `/api/v1/namespaces/${ARGOCD_NS}/pods`,
    name,
    what: "the Argo CD stand-in's Pod to be gone",
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: ARGOCD_NS })),
    until: (p) => p === undefined,
    timeoutMs: 60_000,
  });
}

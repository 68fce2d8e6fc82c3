// Helpers for tests against the test cluster's controllers, scheduler and process node:
// a watch-based wait (no polling sleeps), namespaces with a ServiceAccount of given rights,
// Jobs, and EKS-shaped node groups.
import {
  BatchV1Api,
  CoreV1Api,
  RbacAuthorizationV1Api,
  Watch,
  type KubernetesObject,
  type V1Job,
  type V1PodSpec,
  type V1PolicyRule,
} from '@kubernetes/client-node';
import { adminKubeConfig, testEnv } from '../../harness/env.ts';
import { type NodeGroupShape, nodesOf } from '../env/node/nodeShapes.ts';
import { deleteNodeGroup, registerNodeGroup } from '../env/node/registerNodes.ts';

export const core = (): CoreV1Api => adminKubeConfig().makeApiClient(CoreV1Api);
export const batch = (): BatchV1Api => adminKubeConfig().makeApiClient(BatchV1Api);

export interface WaitSpec<T> {
  /** Collection path to watch, e.g. /apis/batch/v1/namespaces/ns/jobs. */
  readonly path: string;
  /** The object's name; empty watches the whole collection. */
  readonly name: string;
  readonly what: string;
  /** Reads the object now (undefined when it does not exist). */
  read(): Promise<T | undefined>;
  until(obj: T | undefined): boolean;
  readonly timeoutMs?: number;
}

/** Waits, by watching, until the named object satisfies `until`; returns its last state. */
export async function waitFor<T extends KubernetesObject>(spec: WaitSpec<T>): Promise<T | undefined> {
  const timeoutMs = spec.timeoutMs ?? 30_000;
  let last: T | undefined;
  let met = false;
  let settle: (v: T | undefined) => void = () => undefined;
  const done = new Promise<T | undefined>((resolve) => (settle = resolve));
  const check = (obj: T | undefined): void => {
    last = obj;
    if (spec.until(obj)) {
      met = true;
      settle(obj);
    }
  };
  const abort = await new Watch(adminKubeConfig()).watch(
    spec.path,
    spec.name ? { fieldSelector: `metadata.name=${spec.name}` } : {},
    (type, obj: T) => check(type === 'DELETED' ? undefined : obj),
    () => undefined,
  );
  const timer = setTimeout(() => settle(undefined), timeoutMs);
  try {
    check(await spec.read());
    const result = await done;
    // `met`, not until(result): a wait for absence must not pass because the timeout settles with undefined.
    if (!met)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${spec.what}; last seen: ${JSON.stringify(last?.['status' as keyof T] ?? last ?? 'absent')}`,
      );
    return result ?? last;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

const missing = (err: unknown): boolean => (err as { code?: number }).code === 404;

export async function readOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (missing(err)) return undefined;
    throw err;
  }
}

/** Creates a namespace (once) and a ServiceAccount in it holding exactly `rules` there. */
export async function serviceAccountWith(namespace: string, name: string, rules: V1PolicyRule[]): Promise<void> {
  const api = core();
  const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
  await ignoreConflict(api.createNamespace({ body: { metadata: { name: namespace } } }));
  await ignoreConflict(api.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } }));
  if (rules.length === 0) return;
  await ignoreConflict(rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } }));
  await ignoreConflict(
    rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    }),
  );
}

async function ignoreConflict(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
  }
}

/** A Job of one Pod that never retries, as the control plane runs AICR. */
export function oneShotJob(name: string, pod: V1PodSpec, extra: Partial<NonNullable<V1Job['spec']>> = {}): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { backoffLimit: 0, ...extra, template: { spec: { restartPolicy: 'Never', ...pod } } },
  };
}

export function jobCondition(
  job: V1Job | undefined,
  type: string,
): { status: string; reason?: string; message?: string } | undefined {
  return job?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until a Job has the condition `type` True. */
export function jobReaches(
  namespace: string,
  name: string,
  type: string,
  timeoutMs = 60_000,
): Promise<V1Job | undefined> {
  return waitFor<V1Job>({
    path: `/apis/batch/v1/namespaces/${namespace}/jobs`,
    name,
    what: `job ${namespace}/${name} to be ${type}`,
    read: () => readOrUndefined(() => batch().readNamespacedJob({ name, namespace })),
    until: (job) => jobCondition(job, type)?.status === 'True',
    timeoutMs,
  });
}

/** The Pods a Job created. */
export async function jobPods(
  namespace: string,
  job: string,
): Promise<NonNullable<Awaited<ReturnType<CoreV1Api['listNamespacedPod']>>['items']>> {
  return (await core().listNamespacedPod({ namespace, labelSelector: `job-name=${job}` })).items;
}

/** Registers an EKS-shaped node group served by the process node; returns a remover. */
export async function addNodeGroup(group: NodeGroupShape): Promise<{ names: string[]; remove(): Promise<void> }> {
  const names = await registerNodeGroup(core(), group, {
    k8sVersion: testEnv().TESTENV_K8S_VERSION,
    kubeletPort: Number(process.env['TESTENV_KUBELET_PORT']),
  });
  return { names, remove: () => deleteNodeGroup(core(), group) };
}

export { nodesOf };

// Image pulls as a kubelet does them: an image served by the test environment's private
// registry host is pulled only with a credential for that host from the Pod's
// imagePullSecrets (given directly or through its ServiceAccount) that the registry's
// accounts accept; otherwise the pull fails with an authorization error, then backs off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod, V1ContainerStateWaiting } from '@kubernetes/client-node';
import {
  batch,
  core,
  jobPods,
  jobReaches,
  oneShotJob,
  readOrUndefined,
  serviceAccountWith,
  waitFor,
} from '../helpers/cluster.ts';
import { testEnv, uniqueName } from '../../harness/env.ts';
import { kubectl } from '../../harness/runtime.ts';

const registry = (): string => testEnv().TESTENV_PRIVATE_REGISTRY;
const privateShell = (): string => `${registry()}/shell:1`;

/** A pull Secret as `kubectl create secret docker-registry` writes it. */
async function pullSecret(ns: string, name: string, password: string): Promise<void> {
  const { TESTENV_REGISTRY_USER: username } = testEnv();
  await kubectl(
    'create',
    'secret',
    'docker-registry',
    name,
    '-n',
    ns,
    `--docker-server=${registry()}`,
    `--docker-username=${username}`,
    `--docker-password=${password}`,
  );
}

const ended = (p: V1Pod | undefined): boolean => ['Succeeded', 'Failed'].includes(p?.status?.phase ?? '');

/**
 * Creates a Pod running the private shell image once the watch is in place, and waits for it
 * to end or to back off; returns it and every waiting reason seen on the way.
 */
async function pullOutcome(
  ns: string,
  name: string,
  pullSecrets: string[],
): Promise<{ pod: V1Pod | undefined; seen: V1ContainerStateWaiting[] }> {
  const seen: V1ContainerStateWaiting[] = [];
  let created = false;
  const pod = await waitFor<V1Pod>({
    path: `/api/v1/namespaces/${ns}/pods`,
    name,
    what: `pod ${name} to run or back off`,
    read: async () => {
      if (!created) await runShell(ns, name, pullSecrets);
      created = true;
      return readOrUndefined(() => core().readNamespacedPod({ name, namespace: ns }));
    },
    until: (p) => {
      const waiting = p?.status?.containerStatuses?.[0]?.state?.waiting;
      if (waiting && seen.at(-1)?.reason !== waiting.reason) seen.push(waiting);
      return waiting?.reason === 'ImagePullBackOff' || ended(p);
    },
  });
  return { pod, seen };
}

async function runShell(ns: string, name: string, pullSecrets: string[]): Promise<void> {
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        imagePullSecrets: pullSecrets.map((s) => ({ name: s })),
        containers: [{ name: 'main', image: privateShell(), command: ['true'] }],
      },
    },
  });
}

test("a private image without a pull Secret fails with the kubelet's authorization error, then backs off", async () => {
  const ns = uniqueName('pull');
  await serviceAccountWith(ns, 'default', []);
  // A Secret for another registry does not count.
  await kubectl(
    'create',
    'secret',
    'docker-registry',
    'elsewhere',
    '-n',
    ns,
    '--docker-server=other.example.com',
    `--docker-username=${testEnv().TESTENV_REGISTRY_USER}`,
    `--docker-password=${testEnv().TESTENV_REGISTRY_PASSWORD}`,
  );
  const { pod, seen } = await pullOutcome(ns, 'anon', ['elsewhere', 'missing-secret']);
  assert.deepEqual(
    seen.map((w) => w.reason),
    ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff'],
  );
  const ref = privateShell();
  assert.equal(
    seen[1]?.message,
    `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`,
  );
  assert.match(
    seen[2]?.message ?? '',
    new RegExp(`^Back-off pulling image "${ref}": ErrImagePull: .*authorization failed`),
  );
  assert.equal(pod?.status?.phase, 'Pending');
});

test('a pull Secret with a wrong password is refused with 401 Unauthorized', async () => {
  const ns = uniqueName('pull');
  await serviceAccountWith(ns, 'default', []);
  await pullSecret(ns, 'wrong', 'not-the-password');
  const { seen } = await pullOutcome(ns, 'refused', ['wrong']);
  assert.deepEqual(
    seen.map((w) => w.reason),
    ['ContainerCreating', 'ErrImagePull', 'ImagePullBackOff'],
  );
  assert.match(
    seen[1]?.message ?? '',
    new RegExp(
      `unexpected status from HEAD request to https://${registry().replaceAll('.', '\\.')}/v2/shell/manifests/1: 401 Unauthorized$`,
    ),
  );
});

test('with a pull Secret the registry accepts, the private image is pulled and runs', async () => {
  const ns = uniqueName('pull');
  await serviceAccountWith(ns, 'default', []);
  await pullSecret(ns, 'wrong', 'not-the-password');
  await pullSecret(ns, 'regcred', testEnv().TESTENV_REGISTRY_PASSWORD);
  // The kubelet tries each matching credential: a wrong one before the right one is no failure.
  const { pod } = await pullOutcome(ns, 'pulled', ['wrong', 'regcred']);
  assert.equal(pod?.status?.phase, 'Succeeded');
  assert.match(
    pod?.status?.containerStatuses?.[0]?.imageID ?? '',
    new RegExp(`^${registry().replaceAll('.', '\\.')}/shell@sha256:[0-9a-f]{64}$`),
  );
});

test('a Job whose ServiceAccount names the pull Secret runs the private mirror of the AICR image', async () => {
  const ns = uniqueName('pull');
  await serviceAccountWith(ns, 'mirror', []);
  await pullSecret(ns, 'regcred', testEnv().TESTENV_REGISTRY_PASSWORD);
  const account = await core().readNamespacedServiceAccount({ name: 'mirror', namespace: ns });
  await core().replaceNamespacedServiceAccount({
    name: 'mirror',
    namespace: ns,
    body: { ...account, imagePullSecrets: [{ name: 'regcred' }] },
  });
  const name = uniqueName('version');
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, {
      serviceAccountName: 'mirror',
      containers: [{ name: 'aicr', image: `${registry()}/nvidia/aicr:v0.11.1`, args: ['--version'] }],
    }),
  });
  await jobReaches(ns, name, 'Complete', 60_000);
  const [pod] = await jobPods(ns, name);
  assert.deepEqual(
    pod?.spec?.imagePullSecrets?.map((s) => s.name),
    ['regcred'],
    'the ServiceAccount admission plugin copied the Secret into the Pod',
  );
  assert.match(await kubectl('logs', '-n', ns, `job/${name}`), /v0\.11\.1/);
});

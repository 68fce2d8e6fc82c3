// How runs fail in the test cluster, each shown by what the API server reports: a non-zero
// exit, a Pod no Node can take, an image the node cannot pull, a quota that refuses the Pod.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreV1Event, V1ContainerStateTerminated, V1Pod, V1ResourceQuota } from '@kubernetes/client-node';
import {
  batch,
  core,
  jobCondition,
  jobPods,
  jobReaches,
  oneShotJob,
  readOrUndefined,
  serviceAccountWith,
  waitFor,
} from '../helpers/cluster.ts';
import { uniqueName } from '../../harness/env.ts';
import { kubectl } from '../../harness/runtime.ts';

const SHELL = 'testenv.aicr.local/shell:1';

function waitForPod(
  namespace: string,
  name: string,
  what: string,
  until: (pod: V1Pod | undefined) => boolean,
): Promise<V1Pod | undefined> {
  return waitFor<V1Pod>({
    path: `/api/v1/namespaces/${namespace}/pods`,
    name,
    what,
    read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace })),
    until,
  });
}

test('a Job whose command exits 6 shows the code and its stderr in the Pod, and the Job controller marks it Failed', async () => {
  const ns = uniqueName('fail');
  await serviceAccountWith(ns, 'runner', []);
  const name = 'push';
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, {
      serviceAccountName: 'runner',
      containers: [
        {
          name: 'main',
          image: SHELL,
          command: ['/bin/sh', '-c', 'echo "failed to push artifact to registry" >&2; exit 6'],
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    }),
  });
  const job = await jobReaches(ns, name, 'Failed');
  assert.equal(jobCondition(job, 'Failed')?.reason, 'BackoffLimitExceeded');
  assert.equal(job?.status?.failed, 1);
  const [pod] = await jobPods(ns, name);
  assert.equal(pod?.status?.phase, 'Failed');
  const terminated = terminatedState(pod);
  assert.equal(terminated?.exitCode, 6);
  assert.equal(terminated?.reason, 'Error');
  assert.match(terminated?.message ?? '', /failed to push artifact to registry/);
  // kubectl logs goes through the API server to the node's log endpoint.
  assert.equal(await kubectl('logs', '-n', ns, `job/${name}`), 'failed to push artifact to registry\n');
  assert.equal(await kubectl('logs', '-n', ns, `job/${name}`, '--tail', '0'), '');
});

function terminatedState(pod: V1Pod | undefined): V1ContainerStateTerminated | undefined {
  return pod?.status?.containerStatuses?.[0]?.state?.terminated;
}

test("a Pod asking for more GPUs than any Node has stays Pending with the scheduler's Unschedulable reason", async () => {
  const ns = uniqueName('gpus');
  await serviceAccountWith(ns, 'default', []);
  const name = 'greedy';
  await core().createNamespacedPod({
    namespace: ns,
    body: {
      metadata: { name },
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'main', image: SHELL, command: ['true'], resources: { limits: { 'nvidia.com/gpu': '9' } } },
        ],
      },
    },
  });
  const pod = await waitForPod(
    ns,
    name,
    'the scheduler to give up',
    (p) => p?.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') === true,
  );
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
  assert.equal(scheduled?.status, 'False');
  assert.match(scheduled?.message ?? '', /^0\/\d+ nodes are available: .*Insufficient nvidia\.com\/gpu/);
  assert.equal(pod?.status?.phase, 'Pending');
  assert.equal(pod?.spec?.nodeName, undefined);
});

test("an image the node has no entry for ends in ImagePullBackOff, in the kubelet's words", async () => {
  const ns = uniqueName('pull');
  await serviceAccountWith(ns, 'default', []);
  const name = 'nowhere';
  const image = 'registry.example.com/team/missing:1.0';
  await core().createNamespacedPod({
    namespace: ns,
    body: { metadata: { name }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image }] } },
  });
  const pod = await waitForPod(
    ns,
    name,
    'ImagePullBackOff',
    (p) => p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff',
  );
  const waitingState = pod?.status?.containerStatuses?.[0]?.state?.waiting;
  assert.match(waitingState?.message ?? '', new RegExp(`^Back-off pulling image "${image.replaceAll('.', '\\.')}"`));
  assert.equal(pod?.status?.phase, 'Pending');
});

test('a ResourceQuota stops the Job controller from creating the Pod, and says so on the Job', async () => {
  const ns = uniqueName('quota');
  await serviceAccountWith(ns, 'default', []);
  await core().createNamespacedResourceQuota({
    namespace: ns,
    body: { metadata: { name: 'no-pods' }, spec: { hard: { pods: '0' } } },
  });
  // Admission counts against the quota's status, which the quota controller fills in.
  await waitFor<V1ResourceQuota>({
    path: `/api/v1/namespaces/${ns}/resourcequotas`,
    name: 'no-pods',
    what: 'the quota controller to publish the quota',
    read: () => readOrUndefined(() => core().readNamespacedResourceQuota({ name: 'no-pods', namespace: ns })),
    until: (q) => q?.status?.hard?.['pods'] === '0',
  });
  const name = 'refused';
  await batch().createNamespacedJob({
    namespace: ns,
    body: oneShotJob(name, { containers: [{ name: 'main', image: SHELL, command: ['true'] }] }),
  });
  const event = await waitForEvent(ns, name, 'FailedCreate');
  assert.match(
    event?.message ?? '',
    /forbidden: exceeded quota: no-pods, requested: pods=1, used: pods=0, limited: pods=0/,
  );
  assert.equal(event?.involvedObject.kind, 'Job');
  assert.equal(event?.source?.component, 'job-controller');
  assert.deepEqual(await jobPods(ns, name), []);
});

async function waitForEvent(namespace: string, job: string, reason: string): Promise<CoreV1Event | undefined> {
  const find = async (): Promise<CoreV1Event | undefined> => {
    const events = await core().listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.name=${job},reason=${reason}`,
    });
    return events.items[0];
  };
  // Event names are generated; watch the namespace's events and re-read on each.
  let found: CoreV1Event | undefined;
  await waitFor<CoreV1Event>({
    path: `/api/v1/namespaces/${namespace}/events`,
    name: '',
    what: `a ${reason} event on job ${job}`,
    read: async () => (found = await find()),
    until: (e) => (e?.reason === reason && e.involvedObject.name === job ? ((found = e), true) : found !== undefined),
  });
  return found;
}

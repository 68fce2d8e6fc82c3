// Whether the scheduler already acts on a change to the Nodes (a cordon): its Node cache is
// its own, so the only proof is a Pod it turns away. A probe Pod that is bound instead came
// too early; it is removed and another one tried.
import type { V1Pod } from '@kubernetes/client-node';
import { core, readOrUndefined, waitFor } from './cluster.ts';
import { uniqueName } from '../../harness/env.ts';

const NAMESPACE = 'default';
const ATTEMPTS = 5;

type Verdict = 'unschedulable' | 'bound';

function verdictOf(pod: V1Pod | undefined): Verdict | undefined {
  if (pod?.spec?.nodeName) return 'bound';
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable' ? 'unschedulable' : undefined;
}

async function probeOnce(): Promise<Verdict | undefined> {
  const name = uniqueName('testenv-scheduler-probe');
  await core().createNamespacedPod({
    namespace: NAMESPACE,
    body: {
      metadata: { name, labels: { 'testenv.aicr.local/probe': 'true' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'probe', image: 'testenv.aicr.local/pause:1' }] },
    },
  });
  try {
    const pod = await waitFor<V1Pod>({
      path: `/api/v1/namespaces/${NAMESPACE}/pods`,
      name,
      what: `the scheduler to decide on probe Pod ${name}`,
      read: () => readOrUndefined(() => core().readNamespacedPod({ name, namespace: NAMESPACE })),
      until: (p) => verdictOf(p) !== undefined,
    });
    return verdictOf(pod);
  } finally {
    await core()
      .deleteNamespacedPod({ name, namespace: NAMESPACE, gracePeriodSeconds: 0 })
      .catch(() => undefined);
  }
}

/** Resolves once the scheduler turns a new Pod away for want of a Node. */
export async function schedulerSeesNoRoom(): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if ((await probeOnce()) === 'unschedulable') return;
  }
  throw new Error(`the scheduler still placed Pods after ${ATTEMPTS} probes`);
}

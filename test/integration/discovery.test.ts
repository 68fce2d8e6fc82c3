// Discovery end to end on the test cluster with the real aicr v0.11.1 agent: the snapshot step
// reads the node groups, runs AICR's snapshot agent as a Job in aicr-discovery on the simulated
// H100 node, publishes the snapshot in aicr-system, and resolution builds its recipe from it.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { VersionApi } from '@kubernetes/client-node';
import { ANNOTATION, LABEL, NAMESPACES } from '../../shared/api/constants.ts';
import { recipeSnapshotName } from '../../shared/aicr/stages.ts';
import { discoveryOf } from '../../shared/discovery/status.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { type ResolvedCondition, SCALED_TIMINGS, resolvedWith as waitResolved } from '../helpers/resolved.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { addNodeGroup, core } from '../helpers/cluster.ts';
import { adminKubeConfig, uniqueName } from '../../harness/env.ts';
import { forceAicrExit } from '../helpers/knobs.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

const TRAINING = { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' };
const SLOW = 240_000;
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

function start(): void {
  cp = startCapturedControlPlane({ timings: SCALED_TIMINGS });
}

async function stop(): Promise<void> {
  cp?.stop();
  await cp?.running;
  cp = undefined;
}

const resolvedWith = (
  what: string,
  ok: (c: ResolvedCondition) => boolean,
  timeoutMs = SLOW,
): Promise<ResolvedCondition> => waitResolved(what, ok, timeoutMs);

async function snapshotStatus(): Promise<ReturnType<typeof discoveryOf>['snapshot']> {
  const rt = await getRuntime();
  return rt ? discoveryOf(rt).snapshot : undefined;
}

/** Every AICR Job that exists while `body` runs, by stage: jobs are deleted once read, so they are sampled. */
async function jobsDuring<T>(body: () => Promise<T>): Promise<{ result: T; seen: Map<string, string> }> {
  const seen = new Map<string, string>();
  let done = false;
  const sampler = (async () => {
    while (!done) {
      const out = JSON.parse(await kubectl('get', 'jobs', '-A', '-l', LABEL.stage, '-o', 'json')) as {
        items: { metadata: { name: string; labels: Record<string, string> } }[];
      };
      for (const j of out.items) seen.set(j.metadata.name, j.metadata.labels[LABEL.stage] ?? '');
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  try {
    return { result: await body(), seen };
  } finally {
    done = true;
    await sampler;
  }
}

async function resnapshot(value: string): Promise<void> {
  await kubectl('annotate', 'clusterruntime', 'cluster', `${ANNOTATION.resnapshot}=${value}`, '--overwrite');
}

before(async () => {
  await ensureCrds();
});
beforeEach(async () => {
  await stop();
  await deleteRuntime();
  await applyConfiguration();
  for (const ns of [NAMESPACES.jobs, NAMESPACES.discovery])
    await kubectl('delete', 'jobs', '-n', ns, '--all', '--wait=true');
});
after(async () => {
  await stop();
  await deleteRuntime();
  await applyConfiguration();
});

test('DISC-1 DISC-2 the snapshot agent runs on the GPU node; the snapshot in aicr-system names the API server version and the simulated GPU, and the recipe is built from it', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  await resolvedWith('Resolved=True', (c) => c.status === 'True' && c.message.startsWith('plan '));
  const rt = await getRuntime();
  assert.ok(rt);
  const discovery = discoveryOf(rt);
  const gpu = discovery.nodeGroups?.find((g) => g.gpu);
  assert.deepEqual(gpu?.gpu, { product: 'NVIDIA-H100-80GB-HBM3', count: 8 });
  const name = discovery.snapshot?.configMap ?? '';
  assert.match(name, /^aicr-snapshot-[0-9a-f]{16}$/);
  const text = JSON.parse(await kubectl('get', 'configmap', '-n', NAMESPACES.system, name, '-o', 'json')) as {
    data: Record<string, string>;
  };
  const snap = parseYaml(text.data['snapshot.yaml'] ?? '') as {
    kind: string;
    measurements: { type: string; subtypes: { subtype: string; data: Record<string, unknown> }[] }[];
  };
  assert.equal(snap.kind, 'Snapshot');
  const reading = (type: string, sub: string, key: string): unknown =>
    snap.measurements.find((m) => m.type === type)?.subtypes.find((s) => s.subtype === sub)?.data[key];
  const { gitVersion } = await adminKubeConfig().makeApiClient(VersionApi).getCode();
  assert.equal(reading('K8s', 'server', 'version'), gitVersion);
  assert.equal(reading('GPU', 'smi', 'gpu.model'), 'NVIDIA H100 80GB HBM3');
  // The recipe run was given this very snapshot, beside its output.
  const copies = JSON.parse(
    await kubectl('get', 'configmaps', '-n', NAMESPACES.jobs, '-l', `${LABEL.stage}=recipe`, '-o', 'json'),
  ) as { items: { metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> }[] };
  const copy = copies.items.find((c) => c.metadata.name === recipeSnapshotName(c.metadata.labels[LABEL.input] ?? ''));
  assert.equal(copy?.data['snapshot.yaml'], text.data['snapshot.yaml']);
  // The agent's own output in aicr-discovery is gone once copied.
  assert.equal(
    await kubectl('get', 'configmaps', '-n', NAMESPACES.discovery, '-l', `${LABEL.stage}=snapshot`, '-o', 'name'),
    '',
  );
});

test('DISC-3 a new resnapshot value runs snapshot, recipe and render again; the same value again does nothing', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  const first = await resolvedWith('Resolved=True', (c) => c.status === 'True' && c.message.startsWith('plan '));
  const before = await snapshotStatus();
  const { seen } = await jobsDuring(async () => {
    await resnapshot('one');
    await waitFor(
      'a new snapshot',
      async () => ((await snapshotStatus())?.resnapshot === 'one' ? true : undefined),
      SLOW,
    );
    return await resolvedWith(
      'Resolved=True from the new snapshot',
      (c) => c.status === 'True' && c.message.startsWith('plan ') && c.message !== first.message,
    );
  });
  assert.deepEqual(
    [...new Set(seen.values())].sort(),
    ['recipe', 'render', 'snapshot'],
    `three new Jobs: ${[...seen.keys()].join(', ')}`,
  );
  const after = await snapshotStatus();
  assert.notEqual(after?.configMap, before?.configMap, 'each snapshot is new');
  const again = await jobsDuring(async () => {
    await resnapshot('one');
    await new Promise((r) => setTimeout(r, 5_000));
  });
  assert.equal(again.seen.size, 0, 'the same value twice starts nothing');
  assert.deepEqual(await snapshotStatus(), after);
});

test('DISC-2 a failed snapshot Job gives DiscoveryFailed naming the Job; after the fix a requested snapshot clears it', async () => {
  const knob = await forceAicrExit('snapshot', 1, 'error: the agent could not read the node\n', { times: 3 });
  try {
    start();
    await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
    const failed = await resolvedWith('Resolved=False DiscoveryFailed', (c) => c.reason === 'DiscoveryFailed');
    assert.equal(failed.status, 'False');
    assert.match(failed.message, /Job aicr-snapshot-[0-9a-f]{16}-3: aicr snapshot exited 1/);
    assert.match(failed.message, /operator\.aicr\.run\/resnapshot/);
  } finally {
    await knob.undo();
  }
  await resnapshot('fixed');
  await resolvedWith('Resolved=True after the fix', (c) => c.status === 'True' && c.message.startsWith('plan '));
  assert.equal((await snapshotStatus())?.failure, undefined);
});

test('DISC-2 a corrupted snapshot ConfigMap is detected and replaced by a fresh snapshot', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  await resolvedWith('Resolved=True', (c) => c.status === 'True' && c.message.startsWith('plan '));
  const before = await snapshotStatus();
  const name = before?.configMap ?? '';
  await kubectl(
    'patch',
    'configmap',
    '-n',
    NAMESPACES.system,
    name,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ data: { 'snapshot.yaml': 'kind: [not a snapshot' } }),
  );
  const replaced = await waitFor(
    'a fresh snapshot',
    async () => {
      const s = await snapshotStatus();
      return s?.digest && s.digest !== before?.digest && !s.failure ? s : undefined;
    },
    SLOW,
  );
  assert.equal(replaced.configMap, name, 'the same inputs name the same ConfigMap');
  const text = await kubectl(
    'get',
    'configmap',
    '-n',
    NAMESPACES.system,
    name,
    '-o',
    'jsonpath={.data.snapshot\\.yaml}',
  );
  assert.match(text, /kind: Snapshot/);
  await resolvedWith(
    'Resolved=True from the fresh snapshot',
    (c) => c.status === 'True' && c.message.startsWith('plan '),
  );
});

test('DISC-1 a node group appearing makes a new snapshot; a Node added to a group that exists does not', async () => {
  start();
  await createRuntime({ aicrVersion: 'v0.11.1', criteria: TRAINING });
  await resolvedWith('Resolved=True', (c) => c.status === 'True' && c.message.startsWith('plan '));
  const first = await snapshotStatus();
  // A Node for the system group, with that group's labels and no GPUs: the same group facts.
  const name = 'system-9.ec2.internal';
  const labels = { 'eks.amazonaws.com/nodegroup': 'system', 'node.kubernetes.io/instance-type': 'm7i.2xlarge' };
  await core().createNode({ body: { metadata: { name, labels } } });
  try {
    await waitFor(
      'the new Node in status',
      async () => {
        const rt = await getRuntime();
        return rt && discoveryOf(rt).nodeGroups?.find((g) => g.name === 'system')?.nodes === 2 ? true : undefined;
      },
      30_000,
    );
    assert.deepEqual((await snapshotStatus())?.configMap, first?.configMap, 'the same node groups: no new snapshot');
  } finally {
    await core().deleteNode({ name });
  }
  const group = await addNodeGroup({
    name: uniqueName('l40s'),
    instanceType: 'g6e.12xlarge',
    count: 1,
    cpu: '48',
    memory: '384Gi',
    gpu: { product: 'NVIDIA-L40S', count: 4 },
  });
  try {
    const next = await waitFor(
      'a snapshot for the new group',
      async () => {
        const s = await snapshotStatus();
        return s?.configMap && s.configMap !== first?.configMap ? s : undefined;
      },
      SLOW,
    );
    assert.match(next.configMap ?? '', /^aicr-snapshot-[0-9a-f]{16}$/);
  } finally {
    await group.remove();
  }
  // The group gone, discovery snapshots again for the groups that are left.
  await waitFor(
    'a snapshot without the group',
    async () => {
      const rt = await getRuntime();
      return rt &&
        !discoveryOf(rt).nodeGroups?.some((g) => g.gpu?.product === 'NVIDIA-L40S') &&
        !discoveryOf(rt).snapshot?.waiting
        ? true
        : undefined;
    },
    SLOW,
  );
});

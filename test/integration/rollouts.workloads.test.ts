// Running GPU work on the test cluster with Argo CD's own controller (GPU-1, GPU-2): a protected
// Pod running on a GPU Node holds the step of a release that disrupts GPU Nodes, while a release
// that does not disrupt goes first; past maxWait the runtime is Stalled until an approver runs
// kubectl aicr approve --disrupt, which admission refuses to anyone else; the Pod is never evicted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { NAMESPACES } from '../../shared/api/constants.ts';
import { STEP_TABLE, type StepRow } from '../../shared/steps/table.ts';
import { startCapturedControlPlane } from '../../harness/controlPlane.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { chartRelease, pushChart, storePlan, target } from '../../harness/rolloutStage.ts';
import {
  approve,
  awaitingRollout,
  clearRolloutStage,
  released,
  rollout,
  stopAndClear,
} from '../../harness/rollouts.ts';
import { condition, createRuntime, getRuntime, kubectl, stalledBecomes, waitFor } from '../../harness/runtime.ts';

const ROLLOUT_ONLY: readonly StepRow[] = STEP_TABLE.filter((r) => r.name === 'rollout');
const WORK_NS = 'ml-work';
/** The runtime's spec.workloads.maxWait, its least allowed value: 1m. */
const MAX_WAIT_MS = 60_000;
let cp: ReturnType<typeof startCapturedControlPlane> | undefined;

/**
 * The control plane's clock runs `offsetMs` from the machine's, so the test can move it past
 * maxWait (a minute at least) instead of waiting for it. The step looks again on its own timer
 * while it waits, so it is that look, nobody acting, that finds maxWait passed.
 */
let offsetMs = 0;
const controlPlaneNow = (): Date => new Date(Date.now() + offsetMs);

const appCreated = async (name: string): Promise<string> =>
  kubectl(
    'get',
    'application',
    name,
    '-n',
    NAMESPACES.argocd,
    '--ignore-not-found',
    '-o',
    'jsonpath={.metadata.creationTimestamp}',
  );
const podPhase = async (name: string): Promise<string> =>
  kubectl('get', 'pod', name, '-n', WORK_NS, '--ignore-not-found', '-o', 'jsonpath={.status.phase}');

before(async () => {
  await clearRolloutStage();
  cp = startCapturedControlPlane({
    timings: { ...SCALED_TIMINGS, engineRecheckMs: 1_000 },
    table: ROLLOUT_ONLY,
    now: controlPlaneNow,
  });
});

after(async () => {
  await kubectl('delete', 'namespace', WORK_NS, '--ignore-not-found', '--wait=false');
  if (cp) await stopAndClear(cp);
});

test('GPU-1 GPU-2 a protected Pod running on a GPU Node holds the step of a disruptive release while others go on; past maxWait the runtime is Stalled until an approver lets it disrupt; nothing is evicted', async () => {
  await kubectlApply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: WORK_NS } });
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'train-0', namespace: WORK_NS, labels: { 'aicr.test/protected': 'true' } },
    spec: {
      nodeSelector: { 'nvidia.com/gpu.present': 'true' },
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'train', image: 'testenv.aicr.local/pause:1' }],
    },
  });
  await waitFor(
    'the protected Pod to run on a GPU Node',
    async () => ((await podPhase('train-0')) === 'Running' ? true : undefined),
    60_000,
  );

  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
      workloads: { selector: 'aicr.test/protected=true', maxWait: '1m' },
    })
  ).metadata.uid;
  for (const name of ['wl-plain', 'gpu-operator']) await pushChart(name, '1.0.0');
  const { name: plan } = await storePlan(uid, [
    chartRelease('wl-plain', 0, '1.0.0'),
    chartRelease('gpu-operator', 1, '1.0.0'),
  ]);
  await target(plan);
  const waiting = await awaitingRollout(plan);
  const name = waiting.metadata.name;
  await approve(name);

  const held = await released(
    'WaitingForWorkloads before gpu-operator',
    (reason) => reason === 'WaitingForWorkloads',
    90_000,
  );
  assert.match(
    held.message,
    new RegExp(
      `waits before step 2 of 2, Install gpu-operator, a release that disrupts GPU Nodes: 1 protected Pod runs on its \\d+ GPU Nodes?: ${WORK_NS}/train-0`,
    ),
  );
  await stalledBecomes('False'); // waiting for work to end needs nobody yet
  assert.ok(await appCreated('wl-plain'), 'the release that does not disrupt was written');
  assert.equal((await rollout(name)).status?.steps?.[0]?.state, 'Succeeded');
  assert.equal(await appCreated('gpu-operator'), '', 'nothing written for the disruptive release');
  const described = await kubectlAicr(['describe', name], 'alice');
  assert.match(
    described.stdout,
    new RegExp(`${WORK_NS}/train-0`),
    `kubectl aicr describe names the work it waits for:\n${described.stdout}`,
  );
  assert.equal(condition(await getRuntime(), 'Stalled')?.status, 'False', 'still waiting before maxWait has passed');

  offsetMs = MAX_WAIT_MS;
  const stalled = await released(
    'WorkloadsStillRunning past maxWait',
    (reason) => reason === 'WorkloadsStillRunning',
    120_000,
  );
  assert.match(stalled.message, new RegExp(`kubectl aicr approve --disrupt ${name}`));
  await stalledBecomes('True', 'WorkloadsStillRunning'); // past maxWait a person decides
  // Back on the machine's clock before the go-ahead: the step it starts is then timed on the
  // clock Argo CD times its sync with, or the step would wait for that clock to catch up.
  offsetMs = 0;

  const refused = await kubectlAicr(['approve', '--disrupt', name], 'bob');
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /bob is not allowed to let rollouts disrupt running GPU work/);
  const allowed = await kubectlAicr(['approve', '--disrupt', name], 'alice');
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(allowed.stdout, /may disrupt running GPU work: recorded by alice/);
  await released(
    `Released=True on ${plan} with the go-ahead`,
    (reason, message) => reason === 'Released' && message.includes(plan),
    120_000,
  );
  assert.equal((await rollout(name)).spec.disruption?.approvedBy, 'alice');
  assert.equal(await podPhase('train-0'), 'Running', 'the protected Pod was never evicted');
});

// APR-3, the person's side, on the real API server with the real kubectl and the kubectl-aicr
// plugin: describe shows a manual release awaiting acknowledgement with its recorded steps (read
// from its owned Application), acknowledge records who and when as the requesting user and waits
// until the rollout moves the release on, and refusals say why. The test plays the rollout step
// (its own identity writes the rollout and its status), so no control plane runs here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  ANNOTATION,
  ARGOCD,
  FIELD_MANAGER,
  GROUP_VERSION,
  KINDS,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
} from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { stepKube } from '../../harness/controlPlane.ts';
import { uniqueName } from '../../harness/env.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { grantUsers, rollout } from '../../harness/rollouts.ts';
import { ensureCrds, kubectl, waitFor } from '../../harness/runtime.ts';

const asRollout = stepKube('rollout');
const NAME = uniqueName('aicr-rollout-ack');
const MANUAL = uniqueName('ack-driver');
const LATER = uniqueName('ack-fabric');
const RECORDED = ['Drain each GPU node and wait for its pods to leave', 'Reboot the node, then uncordon it'];

type StepStatus = { release: string; state: string; reason?: string; message?: string; startedAt?: string };

/** Where each step is, as the rollout step would write it. */
async function setSteps(steps: StepStatus[]): Promise<void> {
  await asRollout.applyStatus(
    KIND.runtimeRollout,
    { apiVersion: GROUP_VERSION, kind: KINDS.runtimeRollout.kind, metadata: { name: NAME }, status: { steps } },
    { fieldManager: FIELD_MANAGER.rollout, force: true },
  );
}

const awaiting = (release: string): StepStatus => ({
  release,
  state: 'AwaitingAcknowledgement',
  reason: 'AwaitingAcknowledgement',
  message: `${release} is applied and healthy; its recorded steps wait for a person`,
  startedAt: '2026-11-30T10:02:05Z',
});

before(async () => {
  await ensureCrds();
  await kubectl('create', 'namespace', NAMESPACES.argocd).catch(() => undefined);
  await grantUsers();
  const steps = [MANUAL, LATER].map((release) => ({
    release,
    action: 'Upgrade',
    verdict: 'manual',
    fromVersion: '1.0.0',
    toVersion: '2.0.0',
  }));
  const spec = {
    runtimeUID: randomUUID(),
    type: 'Upgrade',
    fromPlan: 'aicr-plan-aaaaaaaaaaaaaaaa',
    toPlan: 'aicr-plan-bbbbbbbbbbbbbbbb',
    steps,
  };
  await asRollout.create(KIND.runtimeRollout, {
    apiVersion: GROUP_VERSION,
    kind: KINDS.runtimeRollout.kind,
    metadata: { name: NAME },
    spec,
  });
  // Approved by a person, as themselves: no identity of the control plane may (SEC-7).
  const approval = { approvedBy: 'alice', approvedAt: '2026-11-30T10:00:00Z' };
  await kubectl(
    'patch',
    'runtimerollout',
    NAME,
    '--as=alice',
    '--type=merge',
    '-p',
    JSON.stringify({ spec: { approval } }),
  );
  await setSteps([awaiting(MANUAL), { release: LATER, state: 'Pending' }]);
  await kubectlApply({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: MANUAL,
      namespace: NAMESPACES.argocd,
      labels: { [LABEL.managedBy]: MANAGED_BY_VALUE },
      annotations: { [ANNOTATION.manual]: 'true', [ANNOTATION.steps]: JSON.stringify(RECORDED) },
    },
    spec: {
      project: ARGOCD.defaultProject,
      destination: { server: ARGOCD.inClusterServer, namespace: 'ack-test' },
      source: { repoURL: 'registry.example/aicr', chart: 'driver', targetRevision: '2.0.0' },
    },
  });
});

after(async () => {
  await kubectl('delete', 'runtimerollout', NAME, '--ignore-not-found');
  await kubectl('delete', 'applications.argoproj.io', MANUAL, '-n', NAMESPACES.argocd, '--ignore-not-found');
});

test('APR-3 kubectl aicr describe shows the release awaiting acknowledgement in flight, numbers its recorded steps from the Application and says how to acknowledge', async () => {
  const shown = await kubectlAicr(['describe', NAME], 'alice');
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(
    shown.stdout,
    new RegExp(`^In flight: 1 ${MANUAL} \\(Upgrade\\) AwaitingAcknowledgement: ${MANUAL} is applied and healthy`, 'm'),
  );
  assert.match(
    shown.stdout,
    new RegExp(
      `^Recorded steps:\\n  1\\. ${RECORDED[0]}\\n  2\\. ${RECORDED[1]}\\nOnce they are done: kubectl aicr acknowledge ${NAME}$`,
      'm',
    ),
  );
  assert.match(shown.stdout, /STATE\s+STARTED\s+CHART VERSION/);
  assert.match(
    shown.stdout,
    new RegExp(
      `${MANUAL}\\s+Upgrade\\s+manual\\s+AwaitingAcknowledgement \\(AwaitingAcknowledgement\\)\\s+2026-11-30T10:02:05Z`,
    ),
  );
  // bob may read rollouts but not Applications: describe says so, and how to see the steps.
  const blind = await kubectlAicr(['describe', NAME], 'bob');
  assert.equal(blind.code, 0, blind.stderr);
  assert.match(
    blind.stdout,
    new RegExp(
      `Recorded steps: cannot read Application argocd/${MANUAL} \\(.*forbidden.*\\); see them with kubectl -n argocd get application ${MANUAL}`,
      'i',
    ),
  );
});

test("APR-3 acknowledge is refused for someone RBAC does not let approve, and for a release that does not await acknowledgement, naming the steps' states; nothing is recorded", async () => {
  const bob = await kubectlAicr(['acknowledge', NAME], 'bob');
  assert.notEqual(bob.code, 0);
  assert.match(
    bob.stderr,
    /acknowledgement refused: bob is not allowed to acknowledge releases: RBAC grants no approve verb on runtimerollouts/,
  );
  const early = await kubectlAicr(['acknowledge', NAME, LATER], 'alice');
  assert.notEqual(early.code, 0);
  assert.match(
    early.stderr,
    new RegExp(
      `release ${LATER} of rollout ${NAME} does not await acknowledgement \\(steps: ${MANUAL} AwaitingAcknowledgement, ${LATER} Pending\\)`,
    ),
  );
  assert.equal((await rollout(NAME)).spec.acknowledgements, undefined);
});

test('APR-3 kubectl aicr acknowledge records who and when as the requesting user, waits until the rollout moves the release on, and prints one line', async () => {
  const started = Date.now();
  const running = kubectlAicr(['acknowledge', NAME, '--timeout', '60s'], 'alice');
  // The rollout step sees the acknowledgement and goes on to the next release.
  const ack = await waitFor('the acknowledgement', async () => (await rollout(NAME)).spec.acknowledgements?.[0]);
  assert.deepEqual([ack.release, ack.acknowledgedBy], [MANUAL, 'alice']);
  assert.ok(Math.abs(Date.parse(ack.acknowledgedAt) - started) < 10_000);
  await setSteps([
    { release: MANUAL, state: 'Succeeded', message: 'applied, healthy and acknowledged' },
    { ...awaiting(LATER), state: 'InProgress', reason: 'Syncing' },
  ]);
  const done = await running;
  assert.equal(done.code, 0, done.stderr);
  assert.equal(
    done.stdout.trim(),
    `rollout ${NAME}: ${MANUAL} acknowledged by alice; now Succeeded: applied, healthy and acknowledged`,
  );
  const shown = await kubectlAicr(['describe', NAME], 'alice');
  assert.match(shown.stdout, new RegExp(`^Acknowledged: ${MANUAL} by alice at ${ack.acknowledgedAt}$`, 'm'));
  assert.match(shown.stdout, new RegExp(`^In flight: 2 ${LATER} \\(Upgrade\\) InProgress: `, 'm'));
  assert.doesNotMatch(shown.stdout, /Recorded steps/);
  const none = await kubectlAicr(['acknowledge', NAME], 'alice');
  assert.notEqual(none.code, 0);
  assert.match(
    none.stderr,
    new RegExp(
      `no step of rollout ${NAME} awaits acknowledgement \\(steps: ${MANUAL} Succeeded, ${LATER} InProgress\\)`,
    ),
  );
});

test('APR-3 an acknowledgement the rollout does not act on within --timeout is reported as recorded but not yet acted on, and the earlier one is kept', async () => {
  await setSteps([{ release: MANUAL, state: 'Succeeded' }, awaiting(LATER)]);
  const slow = await kubectlAicr(['acknowledge', NAME, '--timeout', '2s', '-o', 'json'], 'alice');
  assert.notEqual(slow.code, 0);
  assert.match(
    slow.stderr,
    new RegExp(
      `acknowledgement of ${LATER} recorded, but the control plane has not moved it on within 2s; kubectl aicr describe ${NAME} shows it`,
    ),
  );
  const acks = (await rollout(NAME)).spec.acknowledgements ?? [];
  assert.deepEqual(
    acks.map((a) => [a.release, a.acknowledgedBy]),
    [
      [MANUAL, 'alice'],
      [LATER, 'alice'],
    ],
    'the earlier acknowledgement is kept',
  );
  await setSteps([
    { release: MANUAL, state: 'Succeeded' },
    { release: LATER, state: 'Succeeded' },
  ]);
  const twice = await kubectlAicr(['acknowledge', NAME, LATER, '-o', 'json'], 'alice');
  assert.notEqual(twice.code, 0);
  assert.match(twice.stderr, new RegExp(`release ${LATER} of rollout ${NAME} is already acknowledged by alice`));
});

// What `kubectl aicr describe` and `kubectl aicr acknowledge` say about a rollout, from sample
// objects: the step in flight, each step's reason and start, a manual release's recorded steps
// while it awaits acknowledgement (or how to see them when its Application cannot be read), who
// acknowledged what, and which release acknowledge picks or why none fits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickRelease, acknowledgedText } from '../../cli/acknowledge.ts';
import { parseSteps } from '../../cli/describe.ts';
import { describeRollout, inFlight } from '../../cli/rolloutView.ts';
import { type RolloutObject, parseRollout } from '../../shared/rollout/rules/rolloutObject.ts';

const NAME = 'aicr-rollout-0123456789abcdef-t1';

function sample(states: Record<string, Record<string, string>>, extra: Record<string, unknown> = {}): RolloutObject {
  const r = parseRollout({
    apiVersion: 'operator.aicr.run/v1alpha1',
    kind: 'RuntimeRollout',
    metadata: { name: NAME, uid: '0f0e0d0c-0000-4000-8000-000000000002', resourceVersion: '7' },
    spec: {
      runtimeUID: '5c9a1f3e-0000-4000-8000-000000000001',
      type: 'Upgrade',
      fromPlan: 'aicr-plan-aaaaaaaaaaaaaaaa',
      toPlan: 'aicr-plan-0123456789abcdef',
      steps: [
        { release: 'cert-manager', action: 'Upgrade', verdict: 'safe', fromVersion: 'v1.16.0', toVersion: 'v1.17.0' },
        {
          release: 'gpu-operator',
          action: 'Upgrade',
          verdict: 'manual',
          fromVersion: 'v25.3.0',
          toVersion: 'v25.10.0',
          why: 'the driver needs a node drain',
        },
        { release: 'network-operator', action: 'Install', verdict: 'unknown', toVersion: 'v25.7.0' },
      ],
      approval: { approvedBy: 'alice', approvedAt: '2026-11-30T10:00:00Z' },
      ...extra,
    },
    status: { steps: Object.entries(states).map(([release, s]) => ({ release, ...s })) },
  });
  assert.ok(r, 'the sample fits the schema');
  return r;
}

const progressing = sample({
  'cert-manager': { state: 'Succeeded', startedAt: '2026-11-30T10:01:00Z', finishedAt: '2026-11-30T10:02:00Z' },
  'gpu-operator': {
    state: 'InProgress',
    reason: 'GateNotMet',
    message: 'waiting for gpu-operator to be Healthy',
    startedAt: '2026-11-30T10:02:05Z',
  },
});

const awaiting = sample(
  {
    'cert-manager': { state: 'Succeeded', startedAt: '2026-11-30T10:01:00Z' },
    'gpu-operator': {
      state: 'AwaitingAcknowledgement',
      reason: 'AwaitingAcknowledgement',
      message: 'applied and healthy; its recorded steps wait for a person',
      startedAt: '2026-11-30T10:02:05Z',
    },
  },
  { acknowledgements: [{ release: 'cert-manager', acknowledgedBy: 'bob', acknowledgedAt: '2026-11-30T09:59:00Z' }] },
);

test('APR-3 describe shows the step in flight, and each step with its reason and start time', () => {
  const text = describeRollout(progressing);
  assert.match(text, /^In flight: 2 gpu-operator \(Upgrade\) InProgress: waiting for gpu-operator to be Healthy$/m);
  assert.match(text, /#\s+RELEASE\s+ACTION\s+VERDICT\s+STATE\s+STARTED\s+CHART VERSION\s+HELM VALUES/);
  assert.match(text, /1\s+cert-manager\s+Upgrade\s+safe\s+Succeeded\s+2026-11-30T10:01:00Z\s+v1\.16\.0 → v1\.17\.0/);
  assert.match(text, /2\s+gpu-operator\s+Upgrade\s+manual\s+InProgress \(GateNotMet\)\s+2026-11-30T10:02:05Z/);
  assert.match(text, /3\s+network-operator\s+Install\s+unknown\s+Pending\s+-\s+→ v25\.7\.0/);
  assert.doesNotMatch(text, /Recorded steps/);
  assert.equal(inFlight(progressing)?.spec.release, 'gpu-operator');
});

test('APR-3 describe numbers the recorded steps of the release awaiting acknowledgement, says how to acknowledge, and lists acknowledgements given', () => {
  const text = describeRollout(awaiting, { steps: ['Drain each GPU node', 'Reboot it and uncordon'] });
  assert.match(
    text,
    /^In flight: 2 gpu-operator \(Upgrade\) AwaitingAcknowledgement: applied and healthy; its recorded steps wait for a person$/m,
  );
  assert.match(
    text,
    /^Recorded steps:\n {2}1\. Drain each GPU node\n {2}2\. Reboot it and uncordon\nOnce they are done: kubectl aicr acknowledge aicr-rollout-0123456789abcdef-t1$/m,
  );
  assert.match(text, /^Acknowledged: cert-manager by bob at 2026-11-30T09:59:00Z$/m);
  assert.match(text, /AwaitingAcknowledgement \(AwaitingAcknowledgement\)/);
});

test('APR-3 when the Application cannot be read, describe says so and how to see the recorded steps', () => {
  const text = describeRollout(awaiting, { problem: 'it does not exist' });
  assert.match(
    text,
    /Recorded steps: cannot read Application argocd\/gpu-operator \(it does not exist\); see them with kubectl -n argocd get application gpu-operator -o jsonpath='\{\.metadata\.annotations\.operator\\\.aicr\\\.run\/steps\}'/,
  );
  assert.match(text, /Once they are done: kubectl aicr acknowledge aicr-rollout-0123456789abcdef-t1/);
});

test('the steps annotation reads as a list of strings; anything else is named as unreadable', () => {
  assert.deepEqual(parseSteps('["a","b"]'), { steps: ['a', 'b'] });
  assert.deepEqual(parseSteps(undefined), { steps: [] });
  assert.match(
    (parseSteps('{"a":1}') as { problem: string }).problem,
    /operator\.aicr\.run\/steps is not a JSON list of strings/,
  );
  assert.match((parseSteps('not json') as { problem: string }).problem, /not a JSON list of strings/);
});

test('APR-3 acknowledge picks the release awaiting acknowledgement, or says why none fits, naming every step state', () => {
  assert.deepEqual(pickRelease(awaiting, undefined), { release: 'gpu-operator' });
  assert.deepEqual(pickRelease(awaiting, 'gpu-operator'), { release: 'gpu-operator' });
  const none = pickRelease(progressing, undefined);
  assert.deepEqual(none, {
    problem: `no step of rollout ${NAME} awaits acknowledgement (steps: cert-manager Succeeded, gpu-operator InProgress, network-operator Pending)`,
  });
  assert.match(
    (pickRelease(awaiting, 'network-operator') as { problem: string }).problem,
    /release network-operator .* does not await acknowledgement/,
  );
  assert.match((pickRelease(awaiting, 'nothere') as { problem: string }).problem, /has no step for release nothere/);
  assert.match(
    (pickRelease(awaiting, 'cert-manager') as { problem: string }).problem,
    /already acknowledged by bob at 2026-11-30T09:59:00Z/,
  );
  const ended = sample({}, {});
  const failed = parseRollout({ ...ended, status: { outcome: 'Failed' } });
  assert.ok(failed);
  assert.match(
    (pickRelease(failed, undefined) as { problem: string }).problem,
    /has ended Failed; there is nothing to acknowledge/,
  );
});

test('APR-3 acknowledge prints one line: who acknowledged which release, and where its step is now', () => {
  const line = acknowledgedText(NAME, {
    acknowledgement: { release: 'gpu-operator', acknowledgedBy: 'alice', acknowledgedAt: '2026-11-30T10:10:00Z' },
    step: { release: 'gpu-operator', state: 'Succeeded', message: 'applied, healthy and acknowledged' },
  });
  assert.equal(
    line,
    `rollout ${NAME}: gpu-operator acknowledged by alice; now Succeeded: applied, healthy and acknowledged`,
  );
});

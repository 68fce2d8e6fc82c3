// The bench's split of a rollout's time: Argo CD's part of each step and the writer's part
// between steps, read from Application events alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StepClock } from '../../bench/stepClock.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';

/** An Application at `version`, as Argo CD reports it: settled, or still syncing. */
const app = (name: string, version: string, settled: boolean): GenericObject =>
  ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd', uid: name, resourceVersion: '1' },
    spec: { source: { chart: name, targetRevision: version } },
    status: {
      sync: {
        status: settled ? 'Synced' : 'OutOfSync',
        comparedTo: { source: { chart: name, targetRevision: version } },
        revision: version,
      },
      health: { status: settled ? 'Healthy' : 'Progressing' },
      reconciledAt: '2026-12-07T08:00:00Z',
    },
  }) as GenericObject;

test("the step clock splits a run into Argo CD's part and the writer's, and keeps runs apart by version", () => {
  const clock = new StepClock();
  // Run 1.0.1: alpha written at 0, settled at 1000; bravo written at 1080, settled at 2080.
  clock.note(app('alpha', '1.0.1', false), 0);
  clock.note(app('alpha', '1.0.1', true), 1000);
  clock.note(app('alpha', '1.0.1', true), 1500);
  clock.note(app('bravo', '1.0.1', false), 1080);
  clock.note(app('bravo', '1.0.1', true), 2080);
  // Run 1.0.2 of the same Applications, later: not part of the first run's figures.
  clock.note(app('alpha', '1.0.2', false), 5000);
  clock.note(app('alpha', '1.0.2', true), 5500);
  assert.deepEqual(clock.of('1.0.1'), { steps: 2, argoCdMs: 2000, reactionMs: 80, reactionP50Ms: 80 });
  assert.deepEqual(clock.of('1.0.2'), { steps: 1, argoCdMs: 500, reactionMs: 0, reactionP50Ms: 0 });
  assert.deepEqual(clock.of('9.9.9'), { steps: 0, argoCdMs: 0, reactionMs: 0, reactionP50Ms: 0 });
});

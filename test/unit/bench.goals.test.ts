// The bench's goal table: each goal fails the run when its figure is over its ceiling and passes
// at it or under it, a goal without figures fails, and no figure outside the table fails the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GOAL_NAMES, type GoalName, judge, type Measured, missed } from '../../bench/goals.ts';

interface Figures {
  readonly requestsPerResolution: number;
  readonly localAtEqualArgoCd: number;
  readonly sqsAtEqualArgoCd: number;
  readonly jobToNextP99Ms: number;
  readonly coldImportMs: Readonly<Record<string, number>>;
}

/** Every goal's figure comfortably met. */
const MET: Figures = {
  requestsPerResolution: 90,
  localAtEqualArgoCd: 1.02,
  sqsAtEqualArgoCd: 1.05,
  jobToNextP99Ms: 200,
  coldImportMs: { resolve: 180, forwarder: 120 },
};

/** A run's figures as the bench writes them, the goals' figures from `f`. */
function measured(f: Figures = MET): Measured {
  return {
    aicrRuns: { jobToNext: { p99Ms: f.jobToNextP99Ms }, requestsPerResolution: { total: f.requestsPerResolution } },
    rollout: {
      releases: 50,
      local: { ratioAtEqualArgoCd: f.localAtEqualArgoCd },
      sqs: { ratioAtEqualArgoCd: f.sqsAtEqualArgoCd },
    },
    bundles: Object.entries(f.coldImportMs).map(([fn, median]) => ({ function: fn, coldImportMs: { median } })),
  };
}

/** Whether the run passes with `change` made to the met figures. */
const passes = (change: Partial<Figures>): boolean => missed(judge(measured({ ...MET, ...change }))).length === 0;

/** The goals missed with `change` made to the met figures. */
const missedGoals = (change: Partial<Figures>): GoalName[] =>
  judge(measured({ ...MET, ...change }))
    .filter((v) => !v.met)
    .map((v) => v.goal);

test('the goal table holds exactly the four goals', () => {
  assert.deepEqual([...GOAL_NAMES].sort(), [
    'coldImport',
    'jobFinishedToNextActP99',
    'requestsPerResolution',
    'rolloutAtEqualArgoCd',
  ]);
  assert.equal(missed(judge(measured())).length, 0);
});

test('API requests per resolution: over 100 fails the run, 100 and under pass', () => {
  assert.deepEqual(missedGoals({ requestsPerResolution: 100.5 }), ['requestsPerResolution']);
  assert.ok(passes({ requestsPerResolution: 100 }));
  assert.ok(passes({ requestsPerResolution: 12 }));
});

test("the rollout with Argo CD's part held to the run's own: over 1.1x on either path fails the run, 1.1x and under pass", () => {
  assert.deepEqual(missedGoals({ localAtEqualArgoCd: 1.11 }), ['rolloutAtEqualArgoCd']);
  assert.deepEqual(missedGoals({ sqsAtEqualArgoCd: 1.4 }), ['rolloutAtEqualArgoCd']);
  assert.ok(passes({ localAtEqualArgoCd: 1.1, sqsAtEqualArgoCd: 1.1 }));
  assert.ok(passes({ localAtEqualArgoCd: 0.98, sqsAtEqualArgoCd: 1 }));
});

test('Job finished -> next act p99: over 500 ms fails the run, 500 ms and under pass', () => {
  assert.deepEqual(missedGoals({ jobToNextP99Ms: 500.1 }), ['jobFinishedToNextActP99']);
  assert.ok(passes({ jobToNextP99Ms: 500 }));
  assert.ok(passes({ jobToNextP99Ms: 35 }));
});

test('cold import: one function over 250 ms fails the run, naming it; every function at 250 ms or under passes', () => {
  const verdicts = judge(measured({ ...MET, coldImportMs: { resolve: 251, forwarder: 120 } }));
  assert.deepEqual(
    verdicts.filter((v) => !v.met).map((v) => v.goal),
    ['coldImport'],
  );
  assert.match(missed(verdicts).join('\n'), /\(resolve\): 251 ms \(at most 250 ms\)/);
  assert.ok(passes({ coldImportMs: { resolve: 250, forwarder: 249.9 } }));
});

test('a figure outside the goal table never fails the run, however far off it is', () => {
  // Every figure the bench prints beside the goals' own, each far beyond what was once asked of it.
  const run = {
    ...measured(),
    local: { latency: { p50Ms: 9000, p99Ms: 60_000 }, requestsPerChange: { total: 500 } },
    noOp: { writes: 40, requests: { total: 300 } },
    storm: { updates: 1000, eventsForwarded: 1000, reconciles: 1000, eventsPerReconcile: 1 },
    aicrRuns: {
      runs: 10,
      changeToJob: { p50Ms: 20_000, p99Ms: 90_000 },
      jobToNext: { p50Ms: 100, p99Ms: 200 },
      overhead: { p50Ms: 30_000, p99Ms: 60_000 },
      requestsPerResolution: { total: 90, 'get clusterruntimes': 80 },
    },
    rollout: {
      releases: 50,
      floorMs: 100_000,
      local: { ms: 900_000, ratio: 9, ratioAtEqualArgoCd: 1.05 },
      sqs: { ms: 800_000, ratio: 8, ratioAtEqualArgoCd: 1.08 },
    },
    drift: { quiet: { requests: { 'patch applications': 40, 'delete applications': 2 } } },
    bundles: [
      { function: 'resolve', bundleBytes: 50 * 1024 * 1024, coldImportMs: { median: 240 }, coldImportCpuMs: 900 },
    ],
    firstSighting: { runs: 5, p50Ms: 120_000, maxMs: 180_000, handled: 40, redeliveries: 12 },
    lean: { cost: { single: { total: 40 }, oneDeploymentForTen: 12 } },
    failedPhases: ['drift: the API server went away'],
  };
  assert.deepEqual(missed(judge(run)), []);
});

test('a goal whose phase gave no figures, or no number, fails the run as not measured', () => {
  const { aicrRuns, ...noAicrRuns } = measured();
  assert.ok(aicrRuns);
  assert.deepEqual(
    judge(noAicrRuns)
      .filter((v) => !v.met)
      .map((v) => v.goal),
    ['requestsPerResolution', 'jobFinishedToNextActP99'],
  );
  assert.match(missed(judge(noAicrRuns)).join('\n'), /API requests per resolution: not measured \(at most 100\)/);
  assert.deepEqual(missedGoals({ jobToNextP99Ms: Number.NaN }), ['jobFinishedToNextActP99']);
});

test('a part of the bench run alone is judged on its own goals only', () => {
  const lean: Measured = { bundles: [{ function: 'resolve', coldImportMs: { median: 200 } }] };
  assert.deepEqual(missed(judge(lean, ['coldImport'])), []);
  assert.equal(missed(judge(lean)).length, 3);
});

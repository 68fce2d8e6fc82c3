// `npm run bench` cannot rot unnoticed: every phase runs here at a tiny size against the test
// cluster, and each must print its figures. The figures themselves are not judged at this
// size (a storm of twenty updates cannot coalesce like one of a thousand); the bench's goals
// are judged by `npm run bench` at full size.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import test from 'node:test';

const TINY = {
  BENCH_CHANGES: '3',
  BENCH_STORM_UPDATES: '20',
  BENCH_AICR_RUNS: '1',
  BENCH_ROLLOUT_RELEASES: '1',
  BENCH_IMPORT_RUNS: '1',
  BENCH_DRIFT_UPDATES: '5',
  BENCH_DRIFT_SECONDS: '3',
  BENCH_SIGHTINGS: '1',
  BENCH_QUIET_SECONDS: '3',
  BENCH_IDLE_WAIT_SECONDS: '0',
  BENCH_WINDOWS: '1',
  BENCH_RESULTS: 'results/phases.json',
};

/** The line each phase prints when it ends. */
const PRINTED: readonly [string, RegExp][] = [
  ['local', /change -> status latency \(local, 3 changes\)/],
  ['no-op reconcile', /no-op reconcile: \d+ writes/],
  ['sqs', /change -> status latency \(sqs, moto/],
  ['windowed', /change -> status latency \(sqs \+ windowed forwarder/],
  ['storm', /storm: 20 updates to one runtime/],
  ['aicr runs', /aicr runs \(1 resolutions/],
  ['rollout', /rollout of 1 releases \(P3\)/],
  ['rollout, where its time went', /where the time went, over 1 steps: floor Argo CD [\d.]+ s/],
  ['drift', /drift check: \d+ Application updates/],
  ['first sighting', /first sighting on the SQS path/],
  ['lean', /idle cost, prices of/],
  ['cold imports', /cold import median [\d.]+ ms, [\d.]+ ms of CPU \(CPUs \d+% idle/],
];

test(
  "the bench runs every phase at a tiny size and prints each one's figures; no phase fails",
  { timeout: 540_000 },
  () => {
    const run = spawnSync('node_modules/.bin/node', ['--import', 'tsx', 'bench/run.ts'], {
      env: { ...process.env, ...TINY },
      encoding: 'utf8',
      timeout: 520_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const out = `${run.stdout}\n${run.stderr}`;
    assert.doesNotMatch(
      out,
      /phase .* failed/,
      out
        .split('\n')
        .filter((l) => l.includes('failed'))
        .join('\n'),
    );
    for (const [name, line] of PRINTED) assert.match(run.stdout, line, `phase ${name} printed its figures`);
    assert.match(run.stdout, /written to bench\/results\/phases\.json/);
  },
);

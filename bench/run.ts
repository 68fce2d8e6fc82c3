// `npm run bench`: change -> status latency on the local and the SQS path, API requests per
// reconcile and per no-op reconcile (from the audit log), the control plane's own time around
// AICR runs and its requests per resolution, and each function's bundle size and cold import
// time. Writes bench/results/latest.json and prints a summary; only the goals in ./goals.ts
// judge the figures.
import { mkdirSync, writeFileSync } from 'node:fs';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsProducer } from '../shared/aws/sqsProducer.ts';
import { MemoryCheckpoint } from '../shared/forwarder/checkpoint.ts';
import { Forwarder } from '../shared/forwarder/forwarder.ts';
import { startLocalControlPlane } from '../shared/local/controlPlane.ts';
import { createLogger } from '../shared/observability/log.ts';
import { resolveItem, runResolveOnce } from '../harness/steps.ts';
import { auditMark } from '../harness/audit.ts';
import { controlPlaneKube, forwarderKube, stepKube } from '../harness/controlPlane.ts';
import { adminKubeConfig, awsClientConfig, CONTROL_PLANE_USER, resetMoto, testEnv } from '../harness/env.ts';
import { SqsLambdaDriver, type SqsHandler } from '../harness/sqsDriver.ts';
import { fifoUrls, queueNamed, stepQueues } from './queues.ts';
import { createRuntime, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../harness/runtime.ts';
import type { Context } from 'aws-lambda';
import { FORWARDER_CHECKPOINT } from '../shared/api/constants.ts';
import { createForwarderHandler, DEADLINE_MARGIN_MS } from '../shared/aws/forwarderWindow.ts';
import { measureAicrRuns } from './aicrRuns.ts';
import { measureLean, printLean } from './lean.ts';
import { measureFirstSighting, printSighting } from './firstSighting.ts';
import { measureRollout, type RolloutFigures } from './rollout.ts';
import type { StepTimes } from './stepClock.ts';
import { driftSummary, measureDrift } from './drift.ts';
import { type GoalName, goalTable, judge, missed, report, type Measured } from './goals.ts';
import { ensureRegistrySecrets } from '../harness/configuration.ts';
import { measureChanges, summarise } from './latency.ts';
import { storm } from './storm.ts';
import { runResolve } from '../shared/steps/resolve/index.ts';
import { RUNNERS } from '../shared/steps/runners.ts';
import type { StepRunner } from '../shared/look/contract.ts';
import { controlPlaneRequestsSince, perChange } from './requests.ts';

const CHANGES = Number(process.env['BENCH_CHANGES'] ?? 200);
const silent = createLogger({ level: 'silent' });

/**
 * A runtime on an AICR version the configuration does not pin: it settles at once and starts no
 * Job, so these figures are the framework's own.
 */
async function freshRuntime(): Promise<void> {
  await ensureCrds();
  await deleteRuntime();
  await createRuntime({ aicrVersion: 'v1.1.0' });
}

const AICR_RUNS = Number(process.env['BENCH_AICR_RUNS'] ?? 10);

/**
 * Resolutions with the real aicr: the control plane's own time around each Job, and its API
 * requests per resolution.
 */
async function aicrRunsPath() {
  await ensureCrds();
  await ensureRegistrySecrets();
  await deleteRuntime();
  // Each step as its own identity, as on EKS: only the resolve identity may write plans.
  const cp = startLocalControlPlane({ kube: forwarderKube(), kubeFor: (step) => stepKube(step), log: silent });
  const mark = auditMark();
  const figures = await measureAicrRuns(adminKubeConfig(), AICR_RUNS, deleteRuntime);
  const requests = await controlPlaneRequestsSince(mark);
  cp.stop();
  await cp.running;
  return { ...figures, requestsPerResolution: perChange(requests, AICR_RUNS) };
}

async function localPath() {
  await freshRuntime();
  const cp = startLocalControlPlane({ kube: controlPlaneKube(), log: silent });
  await waitFor('first status', async () =>
    (await getRuntime())?.status?.observedGeneration === 1 ? true : undefined,
  );
  const mark = auditMark();
  const samples = await measureChanges(adminKubeConfig(), CHANGES);
  const requests = await controlPlaneRequestsSince(mark);
  cp.stop();
  await cp.running;
  return { latency: summarise(samples), requestsPerChange: perChange(requests, CHANGES) };
}

/** 1,000 changes to one runtime in local mode: how many events each resolve reconcile stood for. */
async function stormPath() {
  await freshRuntime();
  let runs = 0;
  const counting: StepRunner = async (ctx) => {
    runs++;
    return await runResolve(ctx);
  };
  const cp = startLocalControlPlane({
    kube: controlPlaneKube(),
    log: silent,
    runners: { ...RUNNERS, resolve: counting },
  });
  await waitFor('first status', async () =>
    (await getRuntime())?.status?.observedGeneration === 1 ? true : undefined,
  );
  const figures = await storm(adminKubeConfig(), cp, () => runs, {
    updates: Number(process.env['BENCH_STORM_UPDATES'] ?? 1000),
  });
  cp.stop();
  await cp.running;
  return figures;
}

async function noOpReconcile() {
  const rt = await getRuntime();
  if (!rt) throw new Error('no runtime');
  const mark = auditMark();
  const result = await runResolveOnce(resolveItem(rt.metadata.uid, 'bench'), { kube: controlPlaneKube(), log: silent });
  return { writes: result.writes, requests: await controlPlaneRequestsSince(mark) };
}

/** Fresh queues on moto, the resolve handler configured for them, and a loop feeding it. */
async function sqsRig() {
  await resetMoto();
  const sqs = new SQSClient(awsClientConfig());
  // Every step's queue is there, since the forwarder wakes them all, but only resolve is timed here.
  const queues = await stepQueues(sqs);
  const queue = queueNamed(queues, 'resolve');
  Object.assign(process.env, {
    AICR_KUBECONFIG: testEnv().KUBECONFIG,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    LOG_LEVEL: 'silent',
  });
  const { handler } = (await import('../functions/resolve.ts')) as { handler: SqsHandler };
  const driver = new SqsLambdaDriver(sqs, queue, handler);
  let polling = true;
  const poller = (async () => {
    while (polling) await driver.pollOnce(1);
  })();
  return {
    producer: new SqsProducer(sqs, { fifoQueueUrl: fifoUrls(queues), delayQueueUrl: queues.delay.url }),
    driver,
    stop: async () => {
      polling = false;
      await poller;
    },
  };
}

/** Waits for the first status, then times CHANGES changes. */
async function timeChanges() {
  await waitFor('first status', async () =>
    (await getRuntime())?.status?.observedGeneration === 1 ? true : undefined,
  );
  return summarise(await measureChanges(adminKubeConfig(), CHANGES));
}

async function sqsPath() {
  await freshRuntime();
  const rig = await sqsRig();
  const forwarder = new Forwarder({
    kube: controlPlaneKube(),
    producer: rig.producer,
    log: silent,
    checkpoint: new MemoryCheckpoint(),
  });
  const forwarding = forwarder.run();
  const latency = await timeChanges();
  forwarder.stop();
  await Promise.all([rig.stop(), forwarding]);
  return { latency, invocations: rig.driver.deliveries.length };
}

/** The AWS design end to end: the forwarder in overlapping windows (ADR 0005) feeding SQS and the handler. */
async function windowedPath() {
  await freshRuntime();
  await kubectl(
    'delete',
    'configmap',
    '-n',
    FORWARDER_CHECKPOINT.namespace,
    FORWARDER_CHECKPOINT.name,
    '--ignore-not-found',
  );
  const rig = await sqsRig();
  const kube = controlPlaneKube();
  // Scaled down from 320 s every 300 s: 4 s windows started every 3 s keep the same overlap ratio.
  const window = createForwarderHandler(() => ({ kube, producer: rig.producer, log: silent, windowMs: 4000 }));
  const context = { getRemainingTimeInMillis: () => 4000 + DEADLINE_MARGIN_MS } as Context;
  const windows: Promise<unknown>[] = [];
  let running = true;
  const scheduler = (async () => {
    while (running) {
      windows.push(window({}, context));
      await new Promise((r) => setTimeout(r, 3000));
    }
  })();
  const latency = await timeChanges();
  running = false;
  await Promise.all([scheduler, rig.stop()]);
  await Promise.all(windows);
  return { latency, windows: windows.length };
}

/**
 * Judges the goals named, prints the verdicts and writes them beside the figures to
 * bench/results/<file>; a missed goal sets the exit code.
 */
function conclude(file: string, figures: Measured & Record<string, unknown>, goals?: readonly GoalName[]): void {
  const verdicts = judge(figures, goals);
  const result = { ...figures, goals: goalTable(), missed: missed(verdicts) };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(file, import.meta.url), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`written to bench/${file}`);
  report(verdicts);
}

/** `BENCH_ONLY=lean`: bundles, idle cost and first sighting on the SQS path alone; judges the cold imports. */
async function leanOnly(): Promise<void> {
  const sighting = await measureFirstSighting();
  const lean = await measureLean();
  printLean(lean);
  printSighting(sighting);
  const run = { date: new Date().toISOString(), node: process.version };
  conclude('results/lean.json', { ...run, ...lean, firstSighting: sighting }, ['coldImport']);
}

type AicrRuns = Awaited<ReturnType<typeof aicrRunsPath>>;

function printAicrRuns(a: AicrRuns): void {
  console.log(
    `aicr runs (${a.runs} resolutions, 3 Jobs each: snapshot, recipe, render): ` +
      `change -> Job p50 ${a.changeToJob.p50Ms} ms, p99 ${a.changeToJob.p99Ms} ms; Job finished -> next act ` +
      `p50 ${a.jobToNext.p50Ms} ms, p99 ${a.jobToNext.p99Ms} ms; created -> Resolved less AICR's time p50 ` +
      `${a.overhead.p50Ms} ms, p99 ${a.overhead.p99Ms} ms`,
  );
  const stages = Object.entries(a.jobToNextByStage).map(([k, v]) => `${k} p50 ${v.p50Ms} ms, max ${v.maxMs} ms`);
  console.log(`  Job finished -> next act by the Job that finished: ${stages.join('; ')}`);
  console.log(`  slowest: after the ${a.slowest.stage} Job of run ${a.slowest.run}, ${a.slowest.ms} ms`);
  console.log(`API requests per resolution: ${JSON.stringify(a.requestsPerResolution)}`);
}

/** `BENCH_ONLY=aicr`: resolutions with the real aicr alone; judges their requests and Job finished -> next act. */
async function aicrOnly(): Promise<void> {
  const aicrRuns = await aicrRunsPath();
  printAicrRuns(aicrRuns);
  const run = { date: new Date().toISOString(), node: process.version };
  conclude('results/aicr.json', { ...run, aicrRuns }, ['requestsPerResolution', 'jobFinishedToNextActP99']);
}

/** `BENCH_ONLY=rollout`: the rollout against Argo CD and its floor alone; judges the rollout's goal. */
async function rolloutOnly(): Promise<void> {
  const rollout = await measureRollout();
  await deleteRuntime();
  printRollout(rollout);
  const run = { date: new Date().toISOString(), node: process.version };
  conclude('results/rollout.json', { ...run, rollout }, ['rolloutAtEqualArgoCd']);
}

interface Phase<T> {
  readonly name: string;
  readonly run: () => Promise<T>;
  readonly print: (figures: T) => void;
}

/**
 * Runs one phase and prints its figures at once. A phase that fails is reported and the next one
 * still runs; it fails the bench only through a goal left without figures.
 */
async function phase<T>(p: Phase<T>, failed: string[]): Promise<T | undefined> {
  const started = Date.now();
  try {
    const figures = await p.run();
    p.print(figures);
    console.log(`phase ${p.name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return figures;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    console.error(`phase ${p.name} failed: ${why}`);
    failed.push(`${p.name}: ${why}`);
    return undefined;
  }
}

function printLatency(label: string, l: ReturnType<typeof summarise>, extra = ''): void {
  console.log(
    `change -> status latency (${label}, ${l.n} changes): p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms, ` +
      `max ${l.maxMs} ms${extra}`,
  );
}

function printRollout(ro: RolloutFigures): void {
  console.log(
    `rollout of ${ro.releases} releases (P3), approval -> Released: floor ${ro.floorMs} ms; ` +
      `local ${ro.local.ms} ms (${ro.local.ratio}x), sqs ${ro.sqs.ms} ms (${ro.sqs.ratio}x, ` +
      `${ro.sqs.deliveries} deliveries)`,
  );
  console.log(
    `API requests per rollout step: local ${JSON.stringify(ro.local.requestsPerStep)}; ` +
      `sqs ${JSON.stringify(ro.sqs.requestsPerStep)}`,
  );
  console.log(
    `rollout step looks per release, by what woke each: local ${JSON.stringify(ro.local.looksPerStep)}; ` +
      `sqs ${JSON.stringify(ro.sqs.deliveriesPerStep)}`,
  );
  const part = (t: StepTimes): string =>
    `Argo CD ${(t.argoCdMs / 1000).toFixed(1)} s, writer ${(t.reactionMs / 1000).toFixed(1)} s (p50 ` +
    `${t.reactionP50Ms} ms a step)`;
  console.log(
    `  where the time went, over ${ro.floorSteps.steps} steps: floor ${part(ro.floorSteps)}; ` +
      `local ${part(ro.local.steps)}; sqs ${part(ro.sqs.steps)}`,
  );
  console.log(
    "  the ratio with Argo CD's part held to each run's own, which the goal judges: " +
      `local ${ro.local.ratioAtEqualArgoCd}x, sqs ${ro.sqs.ratioAtEqualArgoCd}x (Argo CD's part moves between ` +
      "runs; the writer's is the control plane's own)",
  );
}

/** Every phase in order; each prints as it ends, so a run stopped or failed part way still says what it measured. */
async function main(): Promise<void> {
  if (process.env['BENCH_ONLY'] === 'lean') return await leanOnly();
  if (process.env['BENCH_ONLY'] === 'rollout') return await rolloutOnly();
  if (process.env['BENCH_ONLY'] === 'aicr') return await aicrOnly();
  const started = Date.now();
  const failed: string[] = [];
  const local = await phase(
    {
      name: 'local',
      run: localPath,
      print: (f) => (
        printLatency('local', f.latency),
        console.log(`API requests per change (local): ${JSON.stringify(f.requestsPerChange)}`)
      ),
    },
    failed,
  );
  const noOp = await phase(
    {
      name: 'no-op reconcile',
      run: noOpReconcile,
      print: (f) => console.log(`no-op reconcile: ${f.writes} writes, requests ${JSON.stringify(f.requests)}`),
    },
    failed,
  );
  const sqs = await phase(
    { name: 'sqs', run: sqsPath, print: (f) => printLatency('sqs, moto, long-poll driver', f.latency) },
    failed,
  );
  const windowed = await phase(
    {
      name: 'windowed',
      run: windowedPath,
      print: (f) => printLatency('sqs + windowed forwarder', f.latency, ` (${f.windows} overlapping windows)`),
    },
    failed,
  );
  const stormFigures = await phase(
    {
      name: 'storm',
      run: stormPath,
      print: (f) =>
        console.log(
          `storm: ${f.updates} updates to one runtime, ${f.eventsForwarded} events forwarded, ` +
            `${f.reconciles} reconciles: ${f.eventsPerReconcile} events per reconcile`,
        ),
    },
    failed,
  );
  const aicrRuns = await phase(
    {
      name: 'aicr runs',
      run: aicrRunsPath,
      print: printAicrRuns,
    },
    failed,
  );
  const rollout = await phase({ name: 'rollout', run: measureRollout, print: printRollout }, failed);
  const drift = await phase({ name: 'drift', run: measureDrift, print: (d) => console.log(driftSummary(d)) }, failed);
  const sighting = await phase(
    { name: 'first sighting', run: () => measureFirstSighting(), print: printSighting },
    failed,
  );
  const lean = await phase({ name: 'lean', run: measureLean, print: printLean }, failed);
  await deleteRuntime();
  const figures = {
    date: new Date().toISOString(),
    node: process.version,
    changes: CHANGES,
    local,
    noOp,
    sqs,
    windowed,
    storm: stormFigures,
    aicrRuns,
    rollout,
    drift,
    bundles: lean?.bundles,
    lean,
    firstSighting: sighting,
    failedPhases: failed,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  conclude(process.env['BENCH_RESULTS'] ?? 'results/latest.json', figures);
}

await main();

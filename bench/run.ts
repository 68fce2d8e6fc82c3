// `npm run bench`: change -> status latency on the local and the SQS path, API requests per
// reconcile and per no-op reconcile (from the audit log), the control plane's own time around
// AICR runs and its requests per resolution, and each function's bundle size and cold import
// time. Writes bench/results/latest.json and prints a summary.
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
import { FIRST_SIGHTING_MAX_MS, measureFirstSighting, printSighting, sightingGoals } from './firstSighting.ts';
import { measureRollout, type RolloutFigures } from './rollout.ts';
import type { StepTimes } from './stepClock.ts';
import { type DriftFigures, driftSummary, measureDrift } from './drift.ts';
import { ensureRegistrySecrets } from '../harness/configuration.ts';
import { measureChanges, summarise } from './latency.ts';
import { storm } from './storm.ts';
import { runResolve } from '../shared/steps/resolve/index.ts';
import { RUNNERS } from '../shared/steps/runners.ts';
import type { StepRunner } from '../shared/steps/types.ts';
import { controlPlaneRequestsSince, perChange } from './requests.ts';

const CHANGES = Number(process.env['BENCH_CHANGES'] ?? 200);
const silent = createLogger({ level: 'silent' });

/** A runtime on an AICR version the configuration does not pin: it settles at once and starts no Job, so these figures are the framework's own. */
async function freshRuntime(): Promise<void> {
  await ensureCrds();
  await deleteRuntime();
  await createRuntime({ aicrVersion: 'v1.1.0' });
}

const AICR_RUNS = Number(process.env['BENCH_AICR_RUNS'] ?? 10);

/** Resolutions with the real aicr: the control plane's own time around each Job, and its API requests per resolution. */
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

/** Goals the bench holds the product to; a miss makes the bench exit non-zero, naming it. */
const GOALS = {
  firstSightingMaxMs: FIRST_SIGHTING_MAX_MS,
  bundleBytes: 1024 * 1024,
  coldImportMs: 250,
  eventsPerReconcile: 5,
  aicrRunP99Ms: 100,
  requestsPerResolution: 15,
  rolloutRatio: 1.2,
  quietDriftCheckWrites: 0,
} as const;

/** A drift check on a quiet cluster reads only. */
function missedDriftGoals(drift: DriftFigures): string[] {
  const writes = Object.entries(drift.quiet.requests).filter(([k]) => /^(create|update|patch|delete)/.test(k));
  return writes.length > GOALS.quietDriftCheckWrites
    ? [`drift check on a quiet cluster wrote: ${writes.map(([k, v]) => `${v} ${k}`).join(', ')}`]
    : [];
}

/** P4: each function's JavaScript and its cold import. */
function bundleMisses(bundles: Awaited<ReturnType<typeof measureLean>>['bundles']): string[] {
  const missed: string[] = [];
  for (const b of bundles) {
    if (b.bundleBytes > GOALS.bundleBytes)
      missed.push(`bundle ${b.function}: ${b.bundleBytes} bytes of JavaScript > ${GOALS.bundleBytes}`);
    if (b.coldImportMs.median > GOALS.coldImportMs)
      missed.push(`bundle ${b.function}: cold import ${b.coldImportMs.median} ms > ${GOALS.coldImportMs} ms`);
  }
  return missed;
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

/** `BENCH_ONLY=lean`: bundles (P4), idle cost (P6) and first sighting on the SQS path alone. */
async function leanOnly(): Promise<void> {
  const sighting = await measureFirstSighting();
  const lean = await measureLean();
  const missed = [...sightingGoals(sighting), ...bundleMisses(lean.bundles), ...lean.missed];
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('results/lean.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...lean, firstSighting: sighting, goals: GOALS, missed }, null, 2)}\n`,
  );
  printLean(lean);
  printSighting(sighting);
  console.log('written to bench/results/lean.json');
  for (const m of missed) console.error(`goal missed: ${m}`);
  if (missed.length > 0) process.exitCode = 1;
}

/** `BENCH_ONLY=rollout`: the rollout against Argo CD and its floor (P3) alone. */
async function rolloutOnly(): Promise<void> {
  const rollout = await measureRollout();
  await deleteRuntime();
  const missed = rolloutGoals(rollout);
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL('results/rollout.json', import.meta.url),
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rollout, goals: GOALS, missed }, null, 2)}\n`,
  );
  printRollout(rollout);
  for (const m of missed) console.error(`goal missed: ${m}`);
  if (missed.length > 0) process.exitCode = 1;
}

interface Phase<T> {
  readonly name: string;
  readonly run: () => Promise<T>;
  readonly print: (figures: T) => void;
  readonly goals?: (figures: T) => string[];
}

/** Runs one phase, prints its figures at once, and records its misses; a phase that fails is a miss and the next one still runs. */
async function phase<T>(p: Phase<T>, missed: string[]): Promise<T | undefined> {
  const started = Date.now();
  try {
    const figures = await p.run();
    p.print(figures);
    console.log(`phase ${p.name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    missed.push(...(p.goals?.(figures) ?? []));
    return figures;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    console.error(`phase ${p.name} failed: ${why}`);
    missed.push(`phase ${p.name} failed: ${why}`);
    return undefined;
  }
}

function printLatency(label: string, l: ReturnType<typeof summarise>, extra = ''): void {
  console.log(
    `change -> status latency (${label}, ${l.n} changes): p50 ${l.p50Ms} ms, p99 ${l.p99Ms} ms, max ${l.maxMs} ms${extra}`,
  );
}

function aicrRunGoals(a: Awaited<ReturnType<typeof aicrRunsPath>>): string[] {
  const missed: string[] = [];
  if (a.changeToJob.p99Ms > GOALS.aicrRunP99Ms)
    missed.push(`aicr runs: change -> Job p99 ${a.changeToJob.p99Ms} ms > ${GOALS.aicrRunP99Ms} ms`);
  if ((a.requestsPerResolution['total'] ?? 0) > GOALS.requestsPerResolution)
    missed.push(
      `aicr runs: ${a.requestsPerResolution['total'] ?? 0} API requests per resolution > ${GOALS.requestsPerResolution}`,
    );
  if (a.jobToNext.p99Ms > GOALS.aicrRunP99Ms)
    missed.push(`aicr runs: Job finished -> next act p99 ${a.jobToNext.p99Ms} ms > ${GOALS.aicrRunP99Ms} ms`);
  return missed;
}

function rolloutGoals(ro: RolloutFigures): string[] {
  return (
    [
      ['local', ro.local],
      ['sqs', ro.sqs],
    ] as const
  )
    .filter(([, f]) => f.ratio > GOALS.rolloutRatio)
    .map(([path, f]) => `rollout (P3), ${path} path: ${f.ratio}x the floor > ${GOALS.rolloutRatio}x`);
}

function printRollout(ro: RolloutFigures): void {
  console.log(
    `rollout of ${ro.releases} releases (P3), approval -> Released: floor ${ro.floorMs} ms; local ${ro.local.ms} ms (${ro.local.ratio}x), sqs ${ro.sqs.ms} ms (${ro.sqs.ratio}x, ${ro.sqs.deliveries} deliveries)`,
  );
  console.log(
    `API requests per rollout step: local ${JSON.stringify(ro.local.requestsPerStep)}; sqs ${JSON.stringify(ro.sqs.requestsPerStep)}`,
  );
  console.log(
    `rollout step looks per release, by what woke each: local ${JSON.stringify(ro.local.looksPerStep)}; sqs ${JSON.stringify(ro.sqs.deliveriesPerStep)}`,
  );
  const part = (t: StepTimes): string =>
    `Argo CD ${(t.argoCdMs / 1000).toFixed(1)} s, writer ${(t.reactionMs / 1000).toFixed(1)} s (p50 ${t.reactionP50Ms} ms a step)`;
  console.log(
    `  where the time went, over ${ro.floorSteps.steps} steps: floor ${part(ro.floorSteps)}; local ${part(ro.local.steps)}; sqs ${part(ro.sqs.steps)}`,
  );
  console.log(
    `  the ratio with Argo CD's part held to each run's own: local ${ro.local.ratioAtEqualArgoCd}x, sqs ${ro.sqs.ratioAtEqualArgoCd}x (Argo CD's part moves between runs; the writer's is the control plane's own)`,
  );
}

/** Every phase in order; each prints as it ends, so a run stopped or failed part way still says what it measured. */
async function main(): Promise<void> {
  if (process.env['BENCH_ONLY'] === 'lean') return await leanOnly();
  if (process.env['BENCH_ONLY'] === 'rollout') return await rolloutOnly();
  const started = Date.now();
  const missed: string[] = [];
  const local = await phase(
    {
      name: 'local',
      run: localPath,
      print: (f) => (
        printLatency('local', f.latency),
        console.log(`API requests per change (local): ${JSON.stringify(f.requestsPerChange)}`)
      ),
    },
    missed,
  );
  const noOp = await phase(
    {
      name: 'no-op reconcile',
      run: noOpReconcile,
      print: (f) => console.log(`no-op reconcile: ${f.writes} writes, requests ${JSON.stringify(f.requests)}`),
    },
    missed,
  );
  const sqs = await phase(
    { name: 'sqs', run: sqsPath, print: (f) => printLatency('sqs, moto, long-poll driver', f.latency) },
    missed,
  );
  const windowed = await phase(
    {
      name: 'windowed',
      run: windowedPath,
      print: (f) => printLatency('sqs + windowed forwarder', f.latency, ` (${f.windows} overlapping windows)`),
    },
    missed,
  );
  const stormFigures = await phase(
    {
      name: 'storm',
      run: stormPath,
      print: (f) =>
        console.log(
          `storm: ${f.updates} updates to one runtime, ${f.eventsForwarded} events forwarded, ${f.reconciles} reconciles: ${f.eventsPerReconcile} events per reconcile`,
        ),
      goals: (f) =>
        f.eventsPerReconcile < GOALS.eventsPerReconcile
          ? [`storm: ${f.eventsPerReconcile} events per reconcile < ${GOALS.eventsPerReconcile}`]
          : [],
    },
    missed,
  );
  const aicrRuns = await phase(
    {
      name: 'aicr runs',
      run: aicrRunsPath,
      print: (a) => {
        console.log(
          `aicr runs (${a.runs} resolutions, 3 Jobs each: snapshot, recipe, render): change -> Job p50 ${a.changeToJob.p50Ms} ms, p99 ${a.changeToJob.p99Ms} ms; Job finished -> next act p50 ${a.jobToNext.p50Ms} ms, p99 ${a.jobToNext.p99Ms} ms; created -> Resolved less AICR's time p50 ${a.overhead.p50Ms} ms, p99 ${a.overhead.p99Ms} ms`,
        );
        const stages = Object.entries(a.jobToNextByStage).map(([k, v]) => `${k} p50 ${v.p50Ms} ms, max ${v.maxMs} ms`);
        console.log(`  Job finished -> next act by the Job that finished: ${stages.join('; ')}`);
        console.log(`  slowest: after the ${a.slowest.stage} Job of run ${a.slowest.run}, ${a.slowest.ms} ms`);
        console.log(`API requests per resolution: ${JSON.stringify(a.requestsPerResolution)}`);
      },
      goals: aicrRunGoals,
    },
    missed,
  );
  const rollout = await phase(
    { name: 'rollout', run: measureRollout, print: printRollout, goals: rolloutGoals },
    missed,
  );
  const drift = await phase(
    { name: 'drift', run: measureDrift, print: (d) => console.log(driftSummary(d)), goals: missedDriftGoals },
    missed,
  );
  const sighting = await phase(
    { name: 'first sighting', run: () => measureFirstSighting(), print: printSighting, goals: sightingGoals },
    missed,
  );
  const lean = await phase(
    { name: 'lean', run: measureLean, print: printLean, goals: (l) => [...bundleMisses(l.bundles), ...l.missed] },
    missed,
  );
  await deleteRuntime();
  const result = {
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
    goals: GOALS,
    missed,
    seconds: Math.round((Date.now() - started) / 1000),
  };
  mkdirSync(new URL('results/', import.meta.url), { recursive: true });
  writeFileSync(
    new URL(process.env['BENCH_RESULTS'] ?? 'results/latest.json', import.meta.url),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  console.log(`written to bench/${process.env['BENCH_RESULTS'] ?? 'results/latest.json'}`);
  for (const m of missed) console.error(`goal missed: ${m}`);
  if (missed.length > 0) process.exitCode = 1;
}

await main();

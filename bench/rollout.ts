// An approved rollout of a 50-release plan, with Argo CD v3.5.1's own controller and
// repo-server deploying each release's fixture chart, timed from the approval to Released=True
// and set against a floor: the same Applications written in the same order by a plain loop that
// waits for the same gate after each, with no control plane. Run on the local path and on the
// SQS path (forwarder → FIFO queue → the rollout function, delays through the relay), with the
// control plane's API requests per step from the audit log. Each ratio is given twice: plain,
// and with Argo CD's part held to the run's own (./stepClock.ts), which is what ./goals.ts judges.
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsProducer } from '../shared/aws/sqsProducer.ts';
import { decodeWorkItem } from '../shared/queue/workItem.ts';
import { MemoryCheckpoint } from '../shared/forwarder/checkpoint.ts';
import { COALESCE_MS, Forwarder } from '../shared/forwarder/forwarder.ts';
import { watchedBy } from '../shared/forwarder/watched.ts';
import { GoneRuntimes } from '../shared/forwarder/goneRuntimes.ts';
import { ConfigurationVersion } from '../shared/forwarder/configurationWatch.ts';
import { startLocalControlPlane } from '../shared/local/controlPlane.ts';
import { createLogger } from '../shared/observability/log.ts';
import { planToApplications, type PlanApplication } from '../shared/plans/applications.ts';
import type { Release } from '../shared/plans/release.ts';
import { writeApplication } from '../shared/rollout/io/applicationWrites.ts';
import { gate } from '../shared/rollout/rules/gate.ts';
import { STEP_TABLE } from '../shared/steps/table.ts';
import { auditMark } from '../harness/audit.ts';
import { controlPlaneKube, forwarderKube, stepKube } from '../harness/controlPlane.ts';
import { adminKubeConfig, awsClientConfig, CONTROL_PLANE_USER, resetMoto, testEnv } from '../harness/env.ts';
import { chartRelease, pushChart, storePlan, target } from '../harness/rolloutStage.ts';
import { clearApplications, clearRolloutStage, released, rolloutsOf } from '../harness/rollouts.ts';
import { createRuntime, deleteRuntime, kubectl } from '../harness/runtime.ts';
import { SqsLambdaDriver, type SqsHandler } from '../harness/sqsDriver.ts';
import { fifoUrls, queueNamed, stepQueues } from './queues.ts';
import { ApplicationWatch } from './applicationWatch.ts';
import { countLooks, withTotal } from './looks.ts';
import { StepClock, type StepTimes } from './stepClock.ts';
import { controlPlaneRequestsSince, perChange } from './requests.ts';

const RELEASES = Number(process.env['BENCH_ROLLOUT_RELEASES'] ?? 50);
const ROLLOUT_ONLY = STEP_TABLE.filter((r) => r.name === 'rollout');
const silent = createLogger({ level: 'silent' });
/**
 * Each run (two floors, local, SQS) deploys its own chart version. With real Argo CD the
 * resources of a removed Application keep running, so a second run at the same version would
 * find everything live and measure no sync at all; a new version makes every run restart each
 * release's workload and wait for it, as a real upgrade does.
 */
const RUNS = 4;
let run = 0;
const version = (): string => `1.0.${run}`;
const nextRun = (): void => void (run += 1);

const releases = (): Release[] =>
  Array.from({ length: RELEASES }, (_, i) => chartRelease(`bench-${String(i).padStart(2, '0')}`, i, version()));

async function stage(): Promise<void> {
  await clearRolloutStage();
  for (let v = 1; v <= RUNS; v++) for (const r of releases()) await pushChart(r.name, `1.0.${v}`);
}

async function noApplications(watch: ApplicationWatch): Promise<void> {
  await clearApplications();
  await watch.until('no Applications left', () => watch.latest.size === 0);
}

/** The plain loop: write each Application, wait for Argo CD's report to pass the gate, go on. */
async function floor(watch: ApplicationWatch): Promise<number> {
  nextRun();
  await noApplications(watch);
  const apps: PlanApplication[] = planToApplications(
    releases(),
    { runtimeUID: 'bench-floor', planDigest: 'sha256:bench-floor' },
    { project: 'default', destination: { server: 'https://kubernetes.default.svc' } },
  );
  // Not a step's identity: the floor's Applications belong to no runtime and use Argo CD's default
  // project, which the chart's policies refuse the steps.
  const kube = controlPlaneKube();
  const started = performance.now();
  for (const app of apps) {
    const writtenAt = new Date();
    await writeApplication(kube, app);
    await watch.until(
      `${app.metadata.name} synced and healthy`,
      () => gate(watch.latest.get(app.metadata.name), app, writtenAt).held,
    );
  }
  return performance.now() - started;
}

/** A runtime whose target is the 50-release plan, its rollout waiting for approval; returns the plan. */
async function awaitingApproval(watch: ApplicationWatch): Promise<{ plan: string; uid: string }> {
  nextRun();
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await noApplications(watch);
  const uid = (
    await createRuntime({
      aicrVersion: 'v0.11.1',
      criteria: { service: 'eks', accelerator: 'h100', intent: 'training', os: 'ubuntu' },
      actionTimeout: '5m',
      validation: { deployment: 'Disabled' },
    })
  ).metadata.uid;
  const { name } = await storePlan(uid, releases());
  await target(name);
  await released(
    `AwaitingApproval for ${name}`,
    (reason, message) => reason === 'AwaitingApproval' && message.includes(name),
    60_000,
  );
  return { plan: name, uid };
}

/** From the approval (written as a person would, with kubectl) to Released=True on the plan. */
async function approvedToReleased(
  plan: string,
  uid: string,
): Promise<{ ms: number; requestsPerStep: Record<string, number> }> {
  const [r] = await rolloutsOf(uid);
  if (!r) throw new Error('no rollout to approve');
  const mark = auditMark();
  const approval = { approvedBy: 'alice', approvedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
  await kubectl(
    '--as',
    'alice',
    'patch',
    'runtimerollouts',
    r.metadata.name,
    '--type',
    'merge',
    '-p',
    JSON.stringify({ spec: { approval } }),
  );
  const started = performance.now();
  const end = await released(
    `Released=True on ${plan}`,
    (reason, message) => (reason === 'Released' && message.includes(plan)) || reason === 'RolloutFailed',
    RELEASES * 10_000,
  );
  if (end.reason !== 'Released') throw new Error(`the rollout did not succeed: ${end.message}`);
  const ms = performance.now() - started;
  return { ms, requestsPerStep: perChange(await controlPlaneRequestsSince(mark), RELEASES) };
}

async function localRun(watch: ApplicationWatch) {
  const looks = countLooks('rollout');
  const cp = startLocalControlPlane({
    kube: forwarderKube(),
    kubeFor: (step) => stepKube(step),
    log: looks.logger,
    table: ROLLOUT_ONLY,
  });
  try {
    const { plan, uid } = await awaitingApproval(watch);
    looks.reset();
    const figures = await approvedToReleased(plan, uid);
    return { ...figures, looksPerStep: perChange(looks.byCause(), RELEASES) };
  } finally {
    cp.stop();
    await cp.running;
  }
}

/** Moto's queues, the rollout and relay functions as Lambda would call them, and the forwarder feeding them. */
async function sqsRig() {
  await resetMoto();
  const sqs = new SQSClient(awsClientConfig());
  const queues = await stepQueues(sqs);
  const [rollout, delay] = [queueNamed(queues, 'rollout'), queues.delay];
  Object.assign(process.env, {
    AICR_KUBECONFIG: testEnv().KUBECONFIG,
    AICR_KUBE_CONTEXT: CONTROL_PLANE_USER,
    LOG_LEVEL: 'error',
  });
  const step = ((await import('../functions/rollout.ts')) as { handler: SqsHandler }).handler;
  const relay = ((await import('../functions/relay.ts')) as { handler: SqsHandler }).handler;
  const drivers = [new SqsLambdaDriver(sqs, rollout, step), new SqsLambdaDriver(sqs, delay, relay)];
  let polling = true;
  const seen = new Set<string>();
  const pollers = drivers.map(async (d) => {
    while (polling) {
      // A failed receive or delete must not end the loop, as it would not end Lambda's polling.
      await d.pollOnce(1).catch((err: unknown) => {
        const text = err instanceof Error ? err.message : String(err);
        if (!seen.has(text)) console.error(`sqs path: ${text}`);
        seen.add(text);
      });
    }
  });
  const producer = new SqsProducer(sqs, { fifoQueueUrl: fifoUrls(queues), delayQueueUrl: delay.url });
  // One forwarder per kind the rollout step wakes on, as the forwarder function runs them: they
  // share what the process knows of gone runtimes and of the configuration's version.
  const gone = new GoneRuntimes();
  const configuration = new ConfigurationVersion();
  const forwarders = watchedBy(ROLLOUT_ONLY).map(
    (w) =>
      new Forwarder(
        {
          kube: forwarderKube(),
          producer,
          log: silent,
          checkpoint: new MemoryCheckpoint(),
          table: ROLLOUT_ONLY,
          coalesceMs: COALESCE_MS,
          gone,
          configuration,
        },
        w,
      ),
  );
  const forwarding = Promise.all(forwarders.map((f) => f.run()));
  return {
    invocations: () => drivers[0]?.deliveries.length ?? 0,
    /**
     * The rollout function's deliveries from the `from`th on, by the cause their work item names; a
     * redelivery counts as `redelivered`.
     */
    causes: (from: number): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const d of drivers[0]?.deliveries.slice(from) ?? []) {
        const key = d.receiveCount > 1 ? 'redelivered' : decodeWorkItem(d.body).cause;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    },
    stop: async () => {
      polling = false;
      for (const f of forwarders) f.stop();
      await Promise.all([...pollers, forwarding]);
    },
  };
}

async function sqsRun(watch: ApplicationWatch) {
  const rig = await sqsRig();
  try {
    const { plan, uid } = await awaitingApproval(watch);
    const before = rig.invocations();
    const figures = await approvedToReleased(plan, uid);
    const causes = rig.causes(before);
    return {
      ...figures,
      deliveries: rig.invocations() - before,
      deliveriesPerStep: perChange(withTotal(causes), RELEASES),
    };
  } finally {
    await rig.stop();
  }
}

export interface RolloutFigures {
  readonly releases: number;
  readonly floorMs: number;
  /** Argo CD's part and the plain loop's in the floor run kept. */
  readonly floorSteps: StepTimes;
  readonly local: {
    readonly ms: number;
    readonly ratio: number;
    readonly steps: StepTimes;
    /** The ratio had Argo CD taken, in the floor, the time it took in this run: the control plane's own share. */
    readonly ratioAtEqualArgoCd: number;
    readonly requestsPerStep: Record<string, number>;
    /** The rollout step's looks per release, by what woke each (local mode's log lines). */
    readonly looksPerStep: Record<string, number>;
  };
  readonly sqs: {
    readonly ms: number;
    readonly ratio: number;
    readonly steps: StepTimes;
    readonly ratioAtEqualArgoCd: number;
    readonly requestsPerStep: Record<string, number>;
    readonly deliveries: number;
    /** The rollout function's deliveries per release, by what woke each. */
    readonly deliveriesPerStep: Record<string, number>;
  };
}

const ratio = (ms: number, floorMs: number): number => Math.round((ms / floorMs) * 100) / 100;

/** This run's Argo CD part with its own writer's part, over the same Argo CD part with the plain loop's. */
const atEqualArgoCd = (run: StepTimes, floorSteps: StepTimes): number =>
  ratio(run.argoCdMs + run.reactionMs, run.argoCdMs + floorSteps.reactionMs);

export async function measureRollout(): Promise<RolloutFigures> {
  await stage();
  const clock = new StepClock();
  const watch = new ApplicationWatch((app, at) => clock.note(app, at));
  await watch.start(adminKubeConfig());
  try {
    // The floor twice, the quicker kept: the control plane is held to the best the loop did.
    const floors: { readonly ms: number; readonly version: string }[] = [];
    for (let i = 0; i < 2; i++) floors.push({ ms: await floor(watch), version: version() });
    console.error(`floor runs: ${floors.map((f) => Math.round(f.ms)).join(' ms, ')} ms`);
    const kept = floors.reduce((a, b) => (b.ms < a.ms ? b : a));
    const floorMs = Math.round(kept.ms);
    const floorSteps = clock.of(kept.version);
    const local = await localRun(watch);
    const localSteps = clock.of(version());
    console.error(`local path: ${Math.round(local.ms)} ms`);
    const sqs = await sqsRun(watch);
    const sqsSteps = clock.of(version());
    return {
      releases: RELEASES,
      floorMs,
      floorSteps,
      local: {
        ...local,
        ms: Math.round(local.ms),
        ratio: ratio(local.ms, floorMs),
        steps: localSteps,
        ratioAtEqualArgoCd: atEqualArgoCd(localSteps, floorSteps),
      },
      sqs: {
        ...sqs,
        ms: Math.round(sqs.ms),
        ratio: ratio(sqs.ms, floorMs),
        steps: sqsSteps,
        ratioAtEqualArgoCd: atEqualArgoCd(sqsSteps, floorSteps),
      },
    };
  } finally {
    watch.stop();
    await deleteRuntime();
    await kubectl('delete', 'runtimerollouts', '--all');
    await clearApplications();
  }
}

/** Runs it alone: `node --import tsx bench/rollout.ts` with the test environment's variables. */
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await measureRollout(), null, 2));

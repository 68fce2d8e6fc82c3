// One AICR stage for one set of inputs, decided afresh from what the cluster holds on every
// call: the stage's record or output, its Jobs (labelled with stage and input hash) and their
// Pods. Nothing is remembered between calls, so any number of repeated or duplicated messages
// start at most the one run the Job name allows.
import { LABEL } from '../api/constants.ts';
import { ConflictError } from '../errors.ts';
import { EVENT_REASON, type EventNote, recordEvent } from '../events/recorder.ts';
import { KIND, type JobObject, type PodObject, type RuntimeObject } from '../kube/kinds.ts';
import type { KubePort, WritableObject } from '../kube/port.ts';
import { backoffDelay, type Timings } from '../timings.ts';
import { STAGE_NAMESPACE, type Stage, inputHash, jobName, runNumberOf } from './stages.ts';
import { VERDICT, describeExit, errorTail, verdictOf } from './verdict.ts';
import {
  type Failure,
  type RunVerdict,
  exitOf,
  failureSummary,
  finishedAt,
  isFinished,
  jobFailureText,
  podsOf,
  recordVerdict,
  recordedFailure,
} from './runJobs.ts';
import { jobsAfterCleanup, removeStaleOutputs } from './staleRuns.ts';
import { describeWaiting, runningMessage } from './waiting.ts';
import type { Logger } from '../observability/log.ts';
import { aicrStageStalled, unauthorizedStagePush } from '../status/reasonMessages.resolved.ts';
import { PENDING_RECHECK_MS, jobFinished, jobPending } from './runMetrics.ts';

/** Failed runs for the same inputs after which a stage is not run again for them. */
export const FAILED_RUNS_BOUND = 3;
/** How long a new Job may have no Pod before that means a refusal (quota, Pod Security). */
export const POD_GRACE_MS = 5_000;

export type Collected<Out> =
  { readonly ok: true; readonly output: Out } | { readonly ok: false; readonly problem: string };

export interface StageSpec<Out> {
  readonly stage: Stage;
  readonly inputs: unknown;
  /** The Job for run `run` of these inputs. */
  job(hash: string, run: number): WritableObject;
  /** What an earlier successful run left for these inputs, if it is there and readable. */
  readRecord(hash: string): Promise<Out | undefined>;
  /** Whether collect needs the run's Pod (its termination message); otherwise the Pod is not read. */
  readonly collectReadsPod?: boolean;
  /** Reads a succeeded run's output (and records it so readRecord finds it). */
  collect(hash: string, job: JobObject, pod: PodObject | undefined): Promise<Collected<Out>>;
  /** Puts in place what a run reads besides its arguments, just before its Job is created. */
  prepare?(hash: string): Promise<void>;
  /** Non-zero exits after which the run's output is still collected (upgrade-check's 2: verdicts needing attention). */
  readonly collectsExits?: readonly number[];
  /** Counted failures after which the stage stalls, when not FAILED_RUNS_BOUND (validation retries once). */
  readonly failedRunsBound?: number;
}

export type StageOutcome<Out> =
  | { readonly state: 'done'; readonly hash: string; readonly output: Out }
  /** `runId`: the Job of the run waited for. */
  | {
      readonly state: 'waiting';
      readonly hash: string;
      readonly message: string;
      readonly recheckAfterMs?: number;
      readonly runId?: string;
    }
  | { readonly state: 'retrying'; readonly hash: string; readonly message: string; readonly afterMs: number }
  | {
      readonly state: 'stalled';
      readonly hash: string;
      readonly reason: 'AICRStageStalled' | 'InvalidSpec' | 'Unauthorized';
      readonly message: string;
    };

export interface StageDeps {
  readonly kube: KubePort;
  readonly now: () => Date;
  readonly timings: Timings;
  readonly event: (note: EventNote) => Promise<void>;
  readonly log?: Logger;
}

/** A run's own lines name it (OBS-1): its Job is the run. */
function runLog(deps: StageDeps, job: JobObject): Logger | undefined {
  return deps.log?.child({ runId: job.metadata.name });
}

export async function runStage<Out>(spec: StageSpec<Out>, deps: StageDeps): Promise<StageOutcome<Out>> {
  const { stage } = spec;
  const hash = inputHash({ stage, inputs: spec.inputs });
  const record = await spec.readRecord(hash);
  if (record !== undefined) return { state: 'done', hash, output: record };

  const all = await jobsAfterCleanup(stage, hash, deps.kube);
  const mine = all
    .filter((j) => j.metadata.labels?.[LABEL.input] === hash)
    .sort((a, b) => runNumberOf(a.metadata.name) - runNumberOf(b.metadata.name));

  const active = mine.find((j) => !isFinished(j, 'Complete') && !isFinished(j, 'Failed'));
  if (active) {
    const waiting = describeWaiting(active, await podsOf(deps.kube, active), deps.now(), POD_GRACE_MS);
    if (waiting.pending) jobPending(runLog(deps, active), active, deps.now());
    const recheckAfterMs = waiting.recheck ? POD_GRACE_MS : waiting.pending ? PENDING_RECHECK_MS : undefined;
    return {
      state: 'waiting',
      hash,
      message: waiting.message,
      runId: active.metadata.name,
      ...(recheckAfterMs === undefined ? {} : { recheckAfterMs }),
    };
  }

  const failures: Failure[] = [];
  for (const job of mine) {
    const seen = recordedFailure(job) ?? (await examine(job, hash, spec, deps));
    if ('output' in seen) return { state: 'done', hash, output: seen.output };
    failures.push(seen);
  }
  return await next({ spec, hash, mine, failures }, deps);
}

/** Collects a finished run's output (and removes its Job), or judges it a failure. */
async function examine<Out>(
  job: JobObject,
  hash: string,
  spec: StageSpec<Out>,
  deps: StageDeps,
): Promise<Failure | { readonly output: Out }> {
  const complete = isFinished(job, 'Complete');
  const pod = !complete || spec.collectReadsPod ? (await podsOf(deps.kube, job))[0] : undefined;
  const { exitCode, output } = exitOf(pod);
  if (complete || (exitCode !== undefined && spec.collectsExits?.includes(exitCode))) {
    const collected = await spec.collect(hash, job, pod);
    if (collected.ok) {
      await deps.kube.delete(KIND.job, job.metadata.name, job.metadata.namespace, { propagationPolicy: 'Background' });
      jobFinished(runLog(deps, job), spec.stage, 'Succeeded', exitCode ?? 0);
      return { output: collected.output };
    }
    return judge(job, { verdict: VERDICT.counted, exitCode: exitCode ?? 0, tail: collected.problem }, spec, deps);
  }
  const tail = errorTail(output) || jobFailureText(job);
  return judge(job, { verdict: verdictOf(spec.stage, exitCode, tail), exitCode, tail }, spec, deps);
}

/** Records how a failed run counts on its Job, and says so in an AICRRunFailed Event (JOB-5). */
async function judge<Out>(job: JobObject, v: RunVerdict, spec: StageSpec<Out>, deps: StageDeps): Promise<Failure> {
  await recordVerdict(deps.kube, job, v);
  const failure: Failure = { job, ...v, finishedAt: finishedAt(job) };
  jobFinished(runLog(deps, job), spec.stage, 'Failed', v.exitCode);
  await deps.event({ type: 'Warning', reason: EVENT_REASON.runFailed, message: failureSummary(spec.stage, failure) });
  return failure;
}

async function keepForStall(failures: readonly Failure[], deps: StageDeps): Promise<void> {
  const ttl = Math.round(deps.timings.stalledJobTtlMs / 1000);
  for (const f of failures) {
    if (f.job.spec?.ttlSecondsAfterFinished === ttl) continue;
    await deps.kube.patch(KIND.job, f.job.metadata.name, f.job.metadata.namespace, {
      spec: { ttlSecondsAfterFinished: ttl },
    });
  }
}

interface Decision<Out> {
  readonly spec: StageSpec<Out>;
  readonly hash: string;
  readonly mine: readonly JobObject[];
  readonly failures: readonly Failure[];
}

/** A stall when the failures so far say the stage must not run again for these inputs. */
function stallOf<Out>({
  spec,
  hash,
  failures,
}: Decision<Out>): Extract<StageOutcome<Out>, { state: 'stalled' }> | undefined {
  const { stage } = spec;
  const last = failures.at(-1);
  const counted = failures.filter((f) => f.verdict === VERDICT.counted);
  const runs = { stage, namespace: STAGE_NAMESPACE[stage], hash };
  const refused = failures.find((f) => f.verdict === VERDICT.refused);
  if (refused)
    return {
      state: 'stalled',
      hash,
      reason: 'InvalidSpec',
      message:
        `AICR refused the ${stage} inputs, so it is not run again for them: ` +
        `${failureSummary(stage, refused)}. Fix the spec`,
    };
  if (last?.verdict === VERDICT.unauthorized) {
    return {
      state: 'stalled',
      hash,
      reason: 'Unauthorized',
      message: unauthorizedStagePush(runs, failureSummary(stage, last)),
    };
  }
  const lastCounted = counted.at(-1);
  if (counted.length < (spec.failedRunsBound ?? FAILED_RUNS_BOUND) || !lastCounted) return undefined;
  return {
    state: 'stalled',
    hash,
    reason: 'AICRStageStalled',
    message: aicrStageStalled(runs, { count: counted.length, last: failureSummary(stage, lastCounted) }),
  };
}

/** How long a transient failure still holds the next run back (JOB-9), or undefined when it may start. */
function transientWait<Out>(
  { spec, hash, failures }: Decision<Out>,
  deps: StageDeps,
): Extract<StageOutcome<Out>, { state: 'retrying' }> | undefined {
  const last = failures.at(-1);
  if (last?.verdict !== VERDICT.transient) return undefined;
  const transients = failures.filter((f) => f.verdict === VERDICT.transient).length;
  // No jitter: every call must compute the same moment, or a burst of events could start the run early.
  const due = last.finishedAt + backoffDelay(transients, deps.timings, () => 0);
  const afterMs = due - deps.now().getTime();
  if (afterMs <= 0) return undefined;
  // The runbook's "exited 6" is what newer AICR releases report for an unreachable registry;
  // v0.11.1's bundle wraps the same [SERVICE_UNAVAILABLE] in exit 8, so the code shown is the
  // one the run really ended with, and both are transient (verdict.ts).
  const exited = describeExit(spec.stage, last.exitCode).replace(/ \(.*\)$/, '');
  return { state: 'retrying', hash, message: `retrying after a transient failure: ${exited}: ${last.tail}`, afterMs };
}

async function next<Out>(d: Decision<Out>, deps: StageDeps): Promise<StageOutcome<Out>> {
  const stall = stallOf(d);
  if (stall) {
    await keepForStall(d.failures, deps);
    return stall;
  }
  const wait = transientWait(d, deps);
  if (wait) return wait;
  const { stage } = d.spec;
  const run = Math.max(0, ...d.mine.map((j) => runNumberOf(j.metadata.name))) + 1;
  const name = jobName(stage, d.hash, run);
  await d.spec.prepare?.(d.hash);
  const create = deps.kube.create(KIND.job, d.spec.job(d.hash, run)).then(
    () => undefined,
    (err: unknown) => {
      // The same run was started by a duplicate message: it is the one to wait for.
      if (!(err instanceof ConflictError)) throw err;
    },
  );
  await Promise.all([create, run === 1 ? removeStaleOutputs(stage, d.hash, deps.kube) : undefined]);
  const last = d.failures.at(-1);
  const earlier = last ? `; run ${runNumberOf(last.job.metadata.name)} failed: ${failureSummary(stage, last)}` : '';
  return {
    state: 'waiting',
    hash: d.hash,
    message: `${runningMessage(stage, name)}${earlier}`,
    recheckAfterMs: POD_GRACE_MS,
    runId: name,
  };
}

/** What a step gives the run machinery: its own access, clock and timings, and Events on its runtime. */
export function stageDepsOf(
  ctx: {
    readonly kube: KubePort;
    readonly now: () => Date;
    readonly timings: Timings;
    readonly runtime: RuntimeObject;
    readonly log?: Logger;
  },
  reporter: string,
): StageDeps {
  return {
    kube: ctx.kube,
    now: ctx.now,
    timings: ctx.timings,
    ...(ctx.log ? { log: ctx.log } : {}),
    event: (note) => recordEvent({ kube: ctx.kube, runtime: ctx.runtime, reporter, now: ctx.now() }, note),
  };
}

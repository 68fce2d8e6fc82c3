// What a step's failure leads to (dispatch.ts runs the step): a stall written through the step's
// owning condition, or a retry with backoff; work retried by itself that keeps failing past a
// bound stalls the runtime with StepFailing and goes on retrying (STL-1).
import { OUTCOME, type Outcome, classify, errorFields } from '../classify.ts';
import { MalformedMessageError, StepNotRoutedError } from '../errors.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';
import { reportIfUnreachable, reportUnwritableStall } from '../observability/unreachable.ts';
import { retryDedupId } from '../queue/dedup.ts';
import type { QueueProducer, ReceivedMessage } from '../queue/port.ts';
import { type WorkItem, encodeWorkItem, runtimeGroup } from '../queue/workItem.ts';
import type { Reason } from '../api/reasons.ts';
import { conditionForReason, replacingOwned, writeStepStatus } from '../status/writeStatus.ts';
import { kubeTime } from '../status/conditions.ts';
import { stepFailing } from '../status/reasonMessages.anyStep.ts';
import { backoffDelay } from '../timings.ts';
import { observeRuntime } from './run.ts';
import { type StepRow, ownedConditions } from './table.ts';
import type { StepDeps, StepResult } from '../look/contract.ts';

export interface DispatchDeps extends StepDeps {
  readonly producer: QueueProducer;
  /** Each step's own Kubernetes identity, where one process runs several (local mode, tests). */
  readonly kubeFor?: (step: string) => KubePort;
  /** The further clusters of a fleet (ADR 0019): undefined for one this deployment does not serve. */
  readonly clusterKube?: (cluster: string) => Promise<KubePort | undefined>;
  /** For backoff jitter; tests pass a fixed one. */
  readonly random?: () => number;
}

export interface Failure {
  readonly item: WorkItem;
  readonly row: StepRow;
  readonly msg: ReceivedMessage;
  readonly deps: DispatchDeps;
  readonly log: Logger;
  readonly table: readonly StepRow[];
}

export async function onFailure(err: unknown, f: Failure): Promise<StepResult | undefined> {
  const outcome = classify(err);
  f.log.warn('step failed', {
    outcome: outcome.kind,
    attempt: f.item.attempt,
    receiveCount: f.msg.receiveCount,
    ...errorFields(err),
  });
  reportIfUnreachable(err, f.log);
  switch (outcome.kind) {
    case OUTCOME.retryNow:
      // Still losing the race after the re-runs: a new message, due at once, behind the group's others.
      return await retryOrStall(err, f, 0);
    case OUTCOME.retryAfter:
      return await retryOrStall(err, f, outcome.delayMs);
    case OUTCOME.stalledWaiting:
    case OUTCOME.stalledRetrying:
      return await stall(outcome, f);
  }
}

/** A message that can only fail (malformed, misrouted) is about no runtime a stall could be written on. */
const aboutARuntime = (err: unknown): boolean =>
  !(err instanceof MalformedMessageError) && !(err instanceof StepNotRoutedError);

/**
 * STL-1: work retried by itself that has failed on every attempt for longer than the bound stalls
 * the runtime with StepFailing, naming the step and the error, and goes on retrying at the
 * backoff's pace; the step's next successful report replaces the stall.
 */
async function retryOrStall(err: unknown, f: Failure, delayMs: number | undefined): Promise<StepResult | undefined> {
  const now = f.deps.now().getTime();
  const since = f.item.failingSince ?? now;
  const failing: Failure = { ...f, item: { ...f.item, failingSince: since } };
  if (!aboutARuntime(err) || now - since < f.deps.timings.failingStallAfterMs) {
    await retry(failing, delayMs);
    return undefined;
  }
  const { errorKind, error } = errorFields(err);
  const message = stepFailing({
    step: f.item.step,
    since: kubeTime(new Date(since)),
    errorKind: String(errorKind),
    error: String(error),
  });
  let writes = 0;
  try {
    writes = await writeStall('StepFailing', message, failing);
  } catch (writeErr) {
    f.log.warn('a step failing past its bound could not be reported', errorFields(writeErr));
  }
  await retry(failing, undefined);
  return { writes };
}

async function stall(outcome: Extract<Outcome, { reason: Reason }>, f: Failure): Promise<StepResult | undefined> {
  let writes: number;
  try {
    writes = await writeStall(outcome.reason, outcome.message, f);
  } catch (writeErr) {
    if (outcome.reason === 'StatusWriteRefused') {
      // Even the fixed report was refused: stop here, loudly, rather than loop on our own bug.
      f.log.error('status write refused again; giving up on this message', errorFields(writeErr));
      return undefined;
    }
    const next = classify(writeErr);
    if (
      (next.kind === OUTCOME.stalledWaiting || next.kind === OUTCOME.stalledRetrying) &&
      next.reason !== 'StatusWriteRefused'
    ) {
      // Refused again (no access entry, no RBAC): going round would spin on the same refusal.
      // A write refused for its content (StatusWriteRefused) still gets its fixed report below.
      reportUnwritableStall(outcome.reason, writeErr, f.log);
      await retry(f, undefined);
      return undefined;
    }
    return await onFailure(writeErr, f);
  }
  // A stall that clears by itself keeps retrying, at most every backoff cap, and is never dead-lettered.
  if (outcome.kind === OUTCOME.stalledRetrying) await retry(f, undefined);
  return { writes };
}

async function writeStall(reason: Reason, message: string, f: Failure): Promise<number> {
  const type = conditionForReason(f.row, reason);
  if (!type) {
    f.log.error('stall reason has no condition this step owns', { reason });
    return 0;
  }
  const observed = await observeRuntime(f.item, f.deps);
  if (!observed) return 0;
  const desired = replacingOwned(observed.runtime, f.row, { type, status: 'False', reason, message });
  return await writeStepStatus({
    kube: f.deps.kube,
    runtime: observed.runtime,
    row: f.row,
    desired,
    expected: ownedConditions(f.table),
    writers: f.table,
    now: f.deps.now(),
    reporter: f.row.name,
    onEventError: (err) => f.log.warn('event not recorded', errorFields(err)),
  });
}

export async function retry(f: Failure, delayMs: number | undefined): Promise<void> {
  const { item, deps } = f;
  const delay = delayMs ?? backoffDelay(item.attempt, deps.timings, deps.random);
  await deps.producer.send({
    step: item.step,
    group: runtimeGroup(item.runtime.uid),
    dedupId: retryDedupId(item.runtime.uid, item.step, f.msg.id),
    body: encodeWorkItem({ ...item, cause: 'retry', attempt: Math.min(item.attempt + 1, 10_000) }),
    delayMs: delay,
  });
  f.log.info('retry scheduled', { attempt: item.attempt + 1, delayMs: delay });
}

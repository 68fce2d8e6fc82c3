// Runs the step a queue message names and turns its failure into what happens next:
// - a stall is written through the step's owning condition (and so into Stalled), and a stall
//   that clears by itself is also retried with backoff; a stall the API server refuses to let
//   the step write is logged and counted for the kube-unreachable alarm, and retried with backoff;
// - a lost write race is re-run at once, then handed to an immediate retry message;
// - other failures are retried with a backoff that grows with the work item's attempt number up
//   to its cap, and keep retrying there for as long as they last (the runbook's promise);
// - only a message that cannot be processed at all (malformed or misrouted) fails the delivery,
//   which the queue dead-letters after MAX_RECEIVES (shared/queue/deliveryPolicy.ts).
// Transient failures are logged only while they last less than a bound; past it the runtime stalls
// with StepFailing (STL-1, failure.ts).
import { errorFields } from '../classify.ts';
import { ConflictError, MalformedMessageError, StepNotRoutedError } from '../errors.ts';
import type { KubePort } from '../kube/port.ts';
import { DEADLINE_RESERVE_MS, STEP_START_MIN_MS, remainingMs } from '../deadline.ts';
import type { Logger } from '../observability/log.ts';
import { METRIC, type MetricPoint, plainFields, sendsStepTimingMetrics } from '../observability/metrics.ts';
import { recheckDedupId, retryDedupId, timerDedupId } from '../queue/dedup.ts';
import { CONFLICT_RERUNS, CONFLICT_SPREAD_MS, MAX_RECEIVES } from '../queue/deliveryPolicy.ts';
import type { ReceivedMessage } from '../queue/port.ts';
import { type WorkItem, decodeWorkItem, encodeWorkItem, runtimeGroup } from '../queue/workItem.ts';
import { type StepCall, runStep } from './run.ts';
import { STEP_TABLE, type StepRow, stepRow } from './table.ts';
import type { StepDeps, StepResult, StepRunner } from '../look/contract.ts';
import { LookTimes } from './lookTimes.ts';
import { type DispatchDeps, onFailure, retry } from './failure.ts';

export type { DispatchDeps } from './failure.ts';

export type MessageDispatcher = (msg: ReceivedMessage, deps: DispatchDeps) => Promise<StepResult | undefined>;

function decode(msg: ReceivedMessage, log: Logger): WorkItem {
  try {
    return decodeWorkItem(msg.body);
  } catch (err) {
    const field = err instanceof MalformedMessageError ? err.field : 'body';
    log.error('malformed message', { field, receiveCount: msg.receiveCount, ...errorFields(err) });
    countLastDelivery(msg, log, 'unknown');
    throw err;
  }
}

/** A dispatcher for the steps one function runs; a message for any other step is refused loudly. */
export function createDispatcher(
  runners: Readonly<Record<string, StepRunner>>,
  table: readonly StepRow[] = STEP_TABLE,
): MessageDispatcher {
  const runs = Object.keys(runners);
  const looks = new LookTimes();
  return async (msg, deps) => {
    const log = deps.log.child({ messageId: msg.id, group: msg.group });
    const item = decode(msg, log);
    const runner = runners[item.step];
    const row = stepRow(item.step, table);
    if (!runner || !row) refuseUnrouted(item.step, runs, msg, log);
    const stepLog = log.child({
      runtimeUID: item.runtime.uid,
      step: item.step,
      cause: item.cause,
      ...(item.cluster ? { cluster: item.cluster } : {}),
    });
    const kube = await kubeOf(item, deps);
    if (!kube) {
      // Its cluster left the fleet: nothing there can be acted on, so the message is dropped.
      stepLog.error('message for a cluster this deployment does not serve; dropped', { cluster: item.cluster });
      return undefined;
    }
    const stepDeps = { ...deps, log: stepLog, kube };
    const left = remainingMs();
    if (left !== undefined && left < STEP_START_MIN_MS) return await handOn(item, msg, stepDeps, left);
    const started = deps.now().getTime();
    if (!looks.begin(item, started, stepLog)) return { writes: 0 };
    try {
      const result = await runRerunningConflicts(item, { row, runner, table }, stepDeps);
      if (result.backoff) await retry({ item, row, msg, deps: stepDeps, log: stepLog, table }, undefined);
      else if (result.recheckAfterMs !== undefined) await recheck({ ...item, askedAt: started }, msg, result, stepDeps);
      return result;
    } catch (err) {
      return await onFailure(err, { item, row, msg, deps: stepDeps, log: stepLog, table });
    } finally {
      reportTiming(stepLog, stepTiming(item.step, msg, started, deps.now().getTime()));
    }
  };
}

function refuseUnrouted(step: string, runs: readonly string[], msg: ReceivedMessage, log: Logger): never {
  const err = new StepNotRoutedError(step, runs);
  log.error('message for a step this function does not run', { step, ...errorFields(err) });
  countLastDelivery(msg, log, step);
  throw err;
}

/** How long the step ran and, when the queue says when the message was sent, how long it waited first. */
function stepTiming(step: string, msg: ReceivedMessage, started: number, finished: number): MetricPoint {
  const age = msg.sentAt > 0 ? [{ metric: METRIC.messageAge, value: Math.max(0, (started - msg.sentAt) / 1000) }] : [];
  return { metric: METRIC.reconcileDuration, value: finished - started, more: age, dimensions: { Step: step } };
}

function reportTiming(log: Logger, timing: MetricPoint): void {
  if (sendsStepTimingMetrics()) log.metric(timing);
  else log.info('step run', plainFields(timing));
}

/** A failed delivery that is the message's last: the queue dead-letters it now, which the dead-letter alarm reports. */
function countLastDelivery(msg: ReceivedMessage, log: Logger, step: string): void {
  if (msg.receiveCount < MAX_RECEIVES) return;
  log.error('message dead-lettered after its last delivery', { receiveCount: msg.receiveCount });
  log.metric({ metric: METRIC.deadLettered, value: 1, dimensions: { Step: step } });
}

/** Too little time left in this invocation to start the step: the work goes on, unchanged, in a message due now. */
async function handOn(item: WorkItem, msg: ReceivedMessage, deps: DispatchDeps, left: number): Promise<undefined> {
  deps.log.info('too little time left to start the step; handed to a retry', {
    remainingMs: left,
    reserveMs: DEADLINE_RESERVE_MS,
  });
  await deps.producer.send({
    step: item.step,
    group: runtimeGroup(item.runtime.uid),
    dedupId: retryDedupId(item.runtime.uid, item.step, msg.id),
    body: msg.body,
  });
  return undefined;
}

/**
 * A lost write race costs a re-read, not a redelivery: the winner's write usually leaves little
 * to do. The re-read waits a random moment first: the steps one change woke together lost to the
 * same winner, and re-reading together they would mostly race each other again.
 */
async function runRerunningConflicts(item: WorkItem, call: StepCall, deps: StepDeps): Promise<StepResult> {
  for (let rerun = 1; ; rerun++) {
    try {
      return await runStep(item, call, deps);
    } catch (err) {
      if (!(err instanceof ConflictError) || rerun > CONFLICT_RERUNS) throw err;
      const afterMs = Math.floor(Math.random() * CONFLICT_SPREAD_MS * rerun);
      deps.log.debug('write conflict; running the step again at once', { rerun, afterMs });
      await new Promise((resolve) => setTimeout(resolve, afterMs));
    }
  }
}

/**
 * The cluster a work item is for: the deployment's own (as the step's identity, where one process
 * runs several), or a further one.
 */
async function kubeOf(item: WorkItem, deps: DispatchDeps): Promise<KubePort | undefined> {
  if (item.cluster === undefined) return deps.kubeFor?.(item.step) ?? deps.kube;
  return await deps.clusterKube?.(item.cluster);
}

/** A look again later that the step asked for; it is new work, so its attempt starts over. */
async function recheck(item: WorkItem, msg: ReceivedMessage, result: StepResult, deps: DispatchDeps): Promise<void> {
  const delayMs = result.recheckAfterMs ?? 0;
  const key = result.recheckKey;
  // A timer (a key) is never skipped: a later look's timer of the same key is the same message,
  // which the queue drops as a duplicate.
  const { askedAt, ...rest } = item;
  const asked = key === undefined && askedAt !== undefined ? { askedAt } : {};
  const body = encodeWorkItem({ ...rest, cause: 'recheck', attempt: 1, ...asked });
  await deps.producer.send({
    step: item.step,
    group: runtimeGroup(item.runtime.uid),
    dedupId:
      key === undefined
        ? recheckDedupId(item.runtime.uid, item.step, msg.id)
        : timerDedupId(item.runtime.uid, item.step, key),
    body,
    delayMs: Math.max(0, Math.round(delayMs)),
  });
  deps.log.debug('recheck scheduled', { delayMs });
}

// Runs the step a queue message names and turns its failure into a queue outcome. Transient
// failures are logged and retried; they never become conditions or Events.
import { OUTCOME, classify, errorFields } from '../classify.ts';
import { MalformedMessageError } from '../errors.ts';
import type { QueueProducer, ReceivedMessage } from '../queue/port.ts';
import { type StepName, type WorkItem, decodeWorkItem, encodeWorkItem, runtimeGroup } from '../queue/workItem.ts';
import { type StepDeps, type StepResult, runResolve } from './resolve/index.ts';

export interface DispatchDeps extends StepDeps {
  readonly producer: QueueProducer;
}

const RUNNERS: Record<StepName, (item: WorkItem, deps: StepDeps) => Promise<StepResult>> = {
  resolve: runResolve,
};

/** Resolves to acknowledge the message; throws to have it redelivered (and dead-lettered in the end). */
export async function handleMessage(msg: ReceivedMessage, deps: DispatchDeps): Promise<StepResult | undefined> {
  const log = deps.log.child({ messageId: msg.id, group: msg.group });
  let item: WorkItem;
  try {
    item = decodeWorkItem(msg.body);
  } catch (err) {
    const field = err instanceof MalformedMessageError ? err.field : 'body';
    log.error('malformed message', { field, receiveCount: msg.receiveCount, ...errorFields(err) });
    throw err;
  }
  const stepLog = log.child({ runtimeUID: item.runtime.uid, step: item.step });
  try {
    return await RUNNERS[item.step](item, { ...deps, log: stepLog });
  } catch (err) {
    const outcome = classify(err, msg.receiveCount);
    stepLog.warn('step failed', { outcome: outcome.kind, receiveCount: msg.receiveCount, ...errorFields(err) });
    if (outcome.kind === OUTCOME.retryNow) throw err;
    if (outcome.kind === OUTCOME.stalledWaiting) return undefined;
    await deps.producer.send({
      step: item.step,
      group: runtimeGroup(item.runtime.uid),
      dedupId: `${item.runtime.uid}/${item.step}/retry/${deps.now().getTime()}`,
      body: encodeWorkItem({ ...item, cause: 'retry' }),
      delayMs: outcome.delayMs,
    });
    return undefined;
  }
}

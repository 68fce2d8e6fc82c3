// Running steps in tests the way the queue would, without repeating the wiring in every file.
import type { RuntimeObject } from '../shared/kube/kinds.ts';
import type { KubePort } from '../shared/kube/port.ts';
import type { Logger } from '../shared/observability/log.ts';
import type { QueueProducer } from '../shared/queue/port.ts';
import type { WorkItem } from '../shared/queue/workItem.ts';
import { type DispatchDeps, createDispatcher } from '../shared/steps/dispatch.ts';
import { runResolve } from '../shared/steps/resolve/index.ts';
import { runStep } from '../shared/steps/run.ts';
import { RUNNERS } from '../shared/steps/runners.ts';
import { stepRow } from '../shared/steps/table.ts';
import type { StepResult } from '../shared/look/contract.ts';
import { DEFAULT_TIMINGS, type Timings } from '../shared/timings.ts';

/** The runtime a dispatcher's unit tests hand their one work item for (uid u-1). */
export const dispatchedRuntime: RuntimeObject = {
  apiVersion: 'operator.aicr.run/v1alpha1',
  kind: 'ClusterRuntime',
  metadata: { name: 'cluster', uid: 'u-1', resourceVersion: '7', generation: 1 },
  spec: {},
  status: { conditions: [] },
};

export function resolveItem(uid: string, cause = 'ADDED'): WorkItem {
  return { v: 1, step: 'resolve', runtime: { name: 'cluster', uid }, cause, attempt: 1 };
}

/** One run of the resolve step: read, decide, write; errors propagate as the dispatcher sees them. */
export function runResolveOnce(
  item: WorkItem,
  deps: { kube: KubePort; log: Logger; now?: () => Date },
): Promise<StepResult> {
  const row = stepRow('resolve');
  if (!row) throw new Error('resolve is not in the step table');
  return runStep(
    item,
    { row, runner: runResolve },
    { kube: deps.kube, log: deps.log, now: deps.now ?? (() => new Date()), timings: DEFAULT_TIMINGS },
  );
}

/** Every step's dispatcher, as local mode builds it. */
export const dispatchAll = createDispatcher(RUNNERS);

export function dispatchDeps(
  kube: KubePort,
  log: Logger,
  producer: QueueProducer,
  timings: Timings = DEFAULT_TIMINGS,
): DispatchDeps {
  return { kube, log, producer, now: () => new Date(), timings, random: () => 0 };
}

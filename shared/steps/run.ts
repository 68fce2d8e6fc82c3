// One step run without the queue around it: read the runtime the message names, run the step,
// write its status. Errors propagate; the dispatcher decides what they mean.
import { errorFields } from '../classify.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import type { WorkItem } from '../queue/workItem.ts';
import { writeStepStatus } from '../status/writeStatus.ts';
import { STEP_TABLE, type StepRow, ownedConditions } from './table.ts';
import type { StepDeps, StepResult, StepRunner } from '../look/contract.ts';
import { configurationUnderWay } from '../look/configuration.ts';

export interface Observed {
  readonly runtime: RuntimeObject;
}

/** The runtime a message names, or undefined when it is gone or is a successor of the same name. */
export async function observeRuntime(item: WorkItem, deps: StepDeps): Promise<Observed | undefined> {
  const runtime = await deps.kube.get(KIND.clusterRuntime, item.runtime.name);
  // A message for an earlier runtime of the same name must not act on its successor.
  if (!runtime || runtime.metadata.uid !== item.runtime.uid) return undefined;
  return { runtime };
}

export interface StepCall {
  readonly row: StepRow;
  readonly runner: StepRunner;
  /** The table the summary's expected conditions come from. */
  readonly table?: readonly StepRow[];
}

export async function runStep(
  item: WorkItem,
  { row, runner, table = STEP_TABLE }: StepCall,
  deps: StepDeps,
): Promise<StepResult> {
  const configuration = row.readsConfiguration ? { configuration: configurationUnderWay(deps.kube, item) } : {};
  const observed = await observeRuntime(item, deps);
  if (!observed) {
    deps.log.debug('runtime gone or replaced; nothing to do');
    return { writes: 0 };
  }
  const said = await runner({ ...deps, item, runtime: observed.runtime, ...configuration });
  // The lines after the step carry what it worked on, as its own lines did.
  const { log: known, ...report } = said;
  const log = known ? deps.log.child(known) : deps.log;
  const recheck = {
    ...(report.recheckAfterMs === undefined ? {} : { recheckAfterMs: report.recheckAfterMs }),
    ...(report.recheckKey === undefined ? {} : { recheckKey: report.recheckKey }),
    ...(report.backoff ? { backoff: true } : {}),
  };
  if (!report.conditions) return { writes: 0, ...recheck };
  const writes = await writeStepStatus({
    kube: deps.kube,
    runtime: report.runtime ?? observed.runtime,
    row,
    desired: report.conditions,
    ...(report.fields ? { fields: report.fields } : {}),
    expected: ownedConditions(table),
    writers: table,
    now: deps.now(),
    reporter: row.name,
    onEventError: (err) => log.warn('event not recorded', errorFields(err)),
  });
  if (writes > 0) log.info('status written', { fieldManager: row.fieldManager, applies: writes });
  log.debug('step ran', { applies: writes });
  return { writes, ...recheck };
}

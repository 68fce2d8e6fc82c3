// The resolve step: observe -> decide -> act. For now it only reports, through conditions,
// that resolution is under way, or that the stored spec can no longer be accepted.
import type { KubePort } from '../../kube/port.ts';
import type { Logger } from '../../observability/log.ts';
import type { WorkItem } from '../../queue/workItem.ts';
import { act } from './act.ts';
import { decide } from './decide.ts';
import { observe } from './observe.ts';

export interface StepDeps {
  readonly kube: KubePort;
  readonly log: Logger;
  readonly now: () => Date;
}

export interface StepResult {
  readonly writes: number;
}

export async function runResolve(item: WorkItem, deps: StepDeps): Promise<StepResult> {
  const obs = await observe(deps.kube, item.runtime.name, item.runtime.uid);
  if (!obs.runtime) {
    deps.log.debug('runtime gone or replaced; nothing to do');
    return { writes: 0 };
  }
  const actions = decide(obs, deps.now());
  await act(deps.kube, actions, deps.log);
  return { writes: actions.length };
}

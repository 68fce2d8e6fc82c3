import type { KubePort } from '../../kube/port.ts';
import type { Logger } from '../../observability/log.ts';
import type { ResolveAction } from './decide.ts';

export async function act(kube: KubePort, actions: readonly ResolveAction[], log: Logger): Promise<void> {
  for (const action of actions) {
    await kube.applyRuntimeStatus(action.patch);
    log.info('status written', { fieldManager: action.patch.fieldManager });
  }
}

// What the rollout step does once the runtime is being deleted, by spec.deletionPolicy: Orphan
// (the default) leaves the releases running and marks them; Delete removes them through an
// approved removal rollout. Either way the cleanup finalizer comes off only when that is done, and
// a runtime whose finalizer was removed by hand is left alone.
import { ClusterRuntimeSpecSchema } from '../../api/clusterRuntime.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { holdsCleanup } from '../../rollouts/cleanupFinalizer.ts';
import type { Engine } from '../../rollouts/engine.ts';
import type { RolloutObject } from '../../rollouts/objects.ts';
import type { StepContext, StepReport } from '../types.ts';
import { orphanEverything } from './orphan.ts';
import { removeEverything } from './removal.ts';

export interface DeletionLook {
  readonly engine: Engine;
  readonly rollouts: readonly RolloutObject[];
  readonly apps: readonly GenericObject[];
  /** Whether Argo CD's Application API answered the listing (apps is empty when it did not). */
  readonly served: boolean;
}

export function onDeletion(ctx: StepContext, look: DeletionLook): Promise<StepReport> {
  if (!holdsCleanup(ctx.runtime)) return Promise.resolve({});
  const spec = ClusterRuntimeSpecSchema.safeParse(ctx.runtime.spec);
  const policy = spec.success ? spec.data.deletionPolicy : 'Orphan';
  return policy === 'Delete' ? removeEverything(ctx, look) : orphanEverything(ctx, look);
}

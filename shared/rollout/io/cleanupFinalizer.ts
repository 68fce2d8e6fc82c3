// The runtime's cleanup finalizer (FIN-1). The rollout step adds it on its first look, before it
// creates a rollout or writes an Application, so a runtime that owns anything in Argo CD is never
// deleted without its deletionPolicy being carried out.
// Adding is a server-side apply of that one entry: finalizers are a set, so another controller's
// entry is kept, and the write needs no resourceVersion, so the status writes every step makes
// while a runtime is new cannot make it conflict. Removing carries the resourceVersion read: a
// finalizer another controller added meanwhile is never lost, the write fails with a conflict and
// the next look tries again.
import { FIELD_MANAGER, FINALIZER } from '../../api/constants.ts';
import { KubeRequestError, TransientError } from '../../errors.ts';
import { KIND, type RuntimeObject } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';

export function holdsCleanup(runtime: RuntimeObject): boolean {
  return (runtime.metadata.finalizers ?? []).includes(FINALIZER.cleanup);
}

function writeFinalizers(
  kube: KubePort,
  runtime: RuntimeObject,
  finalizers: readonly string[],
): Promise<RuntimeObject> {
  const metadata = {
    resourceVersion: runtime.metadata.resourceVersion,
    finalizers: finalizers.length > 0 ? finalizers : null,
  };
  return kube.patch(KIND.clusterRuntime, runtime.metadata.name, undefined, { metadata });
}

/**
 * Adds the finalizer unless it is there or the runtime is already being deleted (the API server
 * refuses new finalizers then); returns the runtime as written, whose resourceVersion the status
 * write that ends the look must carry, or undefined when nothing was written.
 */
export async function ensureCleanup(kube: KubePort, runtime: RuntimeObject): Promise<RuntimeObject | undefined> {
  if (holdsCleanup(runtime) || runtime.metadata.deletionTimestamp) return undefined;
  try {
    return await kube.apply<RuntimeObject>(
      KIND.clusterRuntime,
      { metadata: { name: runtime.metadata.name, finalizers: [FINALIZER.cleanup] } },
      { fieldManager: FIELD_MANAGER.rollout },
    );
  } catch (err) {
    // The API server takes no new finalizer once deletion has started: it started after the read.
    if (err instanceof KubeRequestError && err.status === 422)
      throw new TransientError('the runtime began to be deleted while its cleanup finalizer was added; looking again');
    throw err;
  }
}

/** Takes the finalizer off once the deletionPolicy is carried out; the API server then removes the runtime. */
export async function releaseCleanup(kube: KubePort, runtime: RuntimeObject): Promise<void> {
  if (!holdsCleanup(runtime)) return;
  await writeFinalizers(
    kube,
    runtime,
    (runtime.metadata.finalizers ?? []).filter((f) => f !== FINALIZER.cleanup),
  );
}

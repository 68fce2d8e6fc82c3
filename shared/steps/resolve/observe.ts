import type { KubePort } from '../../kube/port.ts';
import type { RuntimeObject } from '../../kube/types.ts';

export interface ResolveObservation {
  /** Absent when the runtime is gone or is another object than the message named. */
  readonly runtime?: RuntimeObject;
}

export async function observe(kube: KubePort, name: string, uid: string): Promise<ResolveObservation> {
  const runtime = await kube.getRuntime(name);
  // A message for an earlier runtime of the same name must not act on its successor.
  if (!runtime || runtime.metadata.uid !== uid) return {};
  return { runtime };
}

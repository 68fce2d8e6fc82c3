// The Applications the control plane marks as its own in Argo CD's namespace, as the API lists
// them; none is listed while Argo CD's Application API is not served.
import { ANNOTATION, LABEL, MANAGED_BY_VALUE, NAMESPACES } from '../../api/constants.ts';
import { KubeRequestError } from '../../errors.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';

/**
 * Every Application the control plane marks as its own, of any runtime; undefined while Argo CD's
 * Application API is not served.
 */
export async function listManagedApplications(kube: KubePort): Promise<GenericObject[] | undefined> {
  try {
    const { items } = await kube.list(KIND.application, {
      namespace: NAMESPACES.argocd,
      labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
    });
    return items;
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 404) return undefined;
    throw err;
  }
}

/** The runtime's own Applications in Argo CD's namespace; undefined while Argo CD's Application API is not served. */
export async function listOwnedApplications(kube: KubePort, runtimeUID: string): Promise<GenericObject[] | undefined> {
  return (await listManagedApplications(kube))?.filter(
    (a) => a.metadata.annotations?.[ANNOTATION.runtimeUID] === runtimeUID,
  );
}

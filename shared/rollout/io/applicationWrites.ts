// The only writes the control plane makes to Argo CD: one release's Application applied as the
// plan says, and one release removed. A removal sets Argo CD's resources finalizer together with
// the delete-rollout annotation (FIN-4: the chart's admission policy refuses the finalizer
// without it), then deletes the Application, so Argo CD deletes the release's resources first.
import { ANNOTATION, ARGOCD, FIELD_MANAGER, NAMESPACES } from '../../api/constants.ts';
import { KubeRequestError } from '../../errors.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';
import type { PlanApplication } from '../../plans/applications.ts';

/** Server-side apply under the rollout's field manager: fields it wrote before and no longer names are dropped. */
export async function writeApplication(kube: KubePort, app: PlanApplication): Promise<GenericObject> {
  return kube.apply(KIND.application, app, { fieldManager: FIELD_MANAGER.rollout, force: true });
}

/**
 * Asks Argo CD to compare the Application again. A write that changes nothing (a step gated again
 * after an earlier rollout left its Application at the target) gives Argo CD no reason to report
 * anew, and the gate only trusts a report newer than the write. A merge patch, so the annotation
 * Argo CD removes is never the rollout's field to own.
 */
export async function requestRefresh(kube: KubePort, name: string): Promise<void> {
  await kube.patch(KIND.application, name, NAMESPACES.argocd, {
    metadata: { annotations: { [ARGOCD.refreshAnnotation]: 'normal' } },
  });
}

export function readApplication(kube: KubePort, name: string): Promise<GenericObject | undefined> {
  return kube.get(KIND.application, name, NAMESPACES.argocd);
}

/** Whether the Application is still there; a deletion already under way is left to Argo CD. */
export async function removeApplication(kube: KubePort, name: string, rollout: string): Promise<'gone' | 'deleting'> {
  const app = await readApplication(kube, name);
  if (!app) return 'gone';
  if (app.metadata.deletionTimestamp) return 'deleting';
  const finalizers = app.metadata.finalizers ?? [];
  const marked =
    finalizers.includes(ARGOCD.resourcesFinalizer) && app.metadata.annotations?.[ANNOTATION.deleteRollout] === rollout;
  if (!marked) {
    // The version read makes the patch fail rather than drop a finalizer someone added meanwhile.
    const metadata = {
      resourceVersion: app.metadata.resourceVersion,
      finalizers: [...finalizers.filter((f) => f !== ARGOCD.resourcesFinalizer), ARGOCD.resourcesFinalizer],
      annotations: { [ANNOTATION.deleteRollout]: rollout },
    };
    await kube.patch(KIND.application, name, NAMESPACES.argocd, { metadata });
  }
  try {
    await kube.delete(KIND.application, name, NAMESPACES.argocd);
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 404) return 'gone';
    throw err;
  }
  return 'deleting';
}

/**
 * Takes an Application over for this runtime (an Adopt step): its runtime UID becomes this
 * runtime's and the orphaned-from mark goes; nothing else changes, so Argo CD has nothing to sync.
 */
export async function adoptApplication(kube: KubePort, name: string, runtimeUID: string): Promise<'adopted' | 'gone'> {
  const app = await readApplication(kube, name);
  if (!app) return 'gone';
  const metadata = {
    resourceVersion: app.metadata.resourceVersion,
    annotations: { [ANNOTATION.runtimeUID]: runtimeUID, [ANNOTATION.orphanedFrom]: null },
  };
  await kube.patch(KIND.application, name, NAMESPACES.argocd, { metadata });
  return 'adopted';
}

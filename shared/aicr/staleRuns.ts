// A stage's runs and outputs for inputs that have since changed: nothing reads them any more.
import { LABEL } from '../api/constants.ts';
import { KIND, type JobObject } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import { STAGE_NAMESPACE, type Stage } from './stages.ts';

/** The stage's Jobs, once runs for inputs that have changed are gone (JOB-7). */
export async function jobsAfterCleanup(stage: Stage, hash: string, kube: KubePort): Promise<JobObject[]> {
  const namespace = STAGE_NAMESPACE[stage];
  const all = (await kube.list(KIND.job, { namespace, labelSelector: `${LABEL.stage}=${stage}` })).items;
  for (const stale of all.filter((j) => j.metadata.labels?.[LABEL.input] !== hash && !j.metadata.deletionTimestamp)) {
    await kube.delete(KIND.job, stale.metadata.name, namespace, { propagationPolicy: 'Background' });
  }
  return all;
}

/** Outputs of earlier inputs go when a run for new ones starts: once per run, not on every look. */
export async function removeStaleOutputs(stage: Stage, hash: string, kube: KubePort): Promise<void> {
  const namespace = STAGE_NAMESPACE[stage];
  const outputs = (
    await kube.list(KIND.configMap, {
      namespace,
      labelSelector: `${LABEL.stage}=${stage},${LABEL.input}!=${hash}`,
    })
  ).items;
  for (const stale of outputs) await kube.delete(KIND.configMap, stale.metadata.name, namespace);
}

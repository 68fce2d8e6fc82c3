// Why a run that has not finished is not running, in the runbook's words (JOB-3): the Job is
// named, and so is what holds its Pod back, from what the scheduler or the kubelet wrote.
import { LABEL } from '../api/constants.ts';
import type { JobObject, PodObject } from '../kube/kinds.ts';

/**
 * A run on its way: one wording from the Job's creation to its end, so a run that goes well
 * changes the runtime's status once, not at every step of its Pod.
 */
export function runningMessage(stage: string, job: string): string {
  return `aicr ${stage} is running in Job ${job}`;
}

export interface Waiting {
  readonly message: string;
  /** True while the Job is too young for a missing Pod to mean a refusal: look again after the grace. */
  readonly recheck: boolean;
  /** True when the run is held back (no Pod past the grace, unscheduled, a container that cannot start). */
  readonly pending?: boolean;
}

/**
 * Waiting reasons that hold a container back instead of starting it: the image cannot be
 * pulled, its configuration cannot be built (a missing Secret or ConfigMap), the runtime
 * could not start it (an argument list the kernel refuses), or it keeps crashing. Any of them
 * is named, so the runtime never reads "running" while its Pod cannot run. ContainerCreating
 * and PodInitializing are on their way and stay "running".
 */
const HELD_BACK = new Set([
  'ImagePullBackOff',
  'ErrImagePull',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);

function withoutPod(job: JobObject, now: Date, podGraceMs: number): Waiting {
  const name = job.metadata.name;
  const created = Date.parse(job.metadata.creationTimestamp ?? '') || now.getTime();
  if (now.getTime() - created < podGraceMs)
    return { message: runningMessage(job.metadata.labels?.[LABEL.stage] ?? '', name), recheck: true };
  return {
    message:
      `Job ${name} has no pod (a quota or Pod Security refusal; kubectl describe job ${name} -n ` +
      `${job.metadata.namespace ?? ''} shows it)`,
    recheck: false,
    pending: true,
  };
}

function heldBack(pod: PodObject): string | undefined {
  for (const c of pod.status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && HELD_BACK.has(waiting.reason))
      return `${waiting.reason}: ${waiting.message ?? ''}`.trimEnd();
  }
  return undefined;
}

export function describeWaiting(job: JobObject, pods: readonly PodObject[], now: Date, podGraceMs: number): Waiting {
  const name = job.metadata.name;
  const pod = pods.find((p) => !p.metadata.deletionTimestamp) ?? pods[0];
  if (!pod) return withoutPod(job, now, podGraceMs);
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled)
    return {
      message: `Job ${name} is not scheduled: ${unscheduled.message ?? unscheduled.reason ?? 'no reason given'}`,
      recheck: false,
      pending: true,
    };
  const held = heldBack(pod);
  if (held) return { message: `Job ${name}: ${held}`, recheck: false, pending: true };
  return { message: runningMessage(job.metadata.labels?.[LABEL.stage] ?? '', name), recheck: false };
}

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
  /** True when the run is held back (no Pod past the grace, unscheduled, its image not pulled). */
  readonly pending?: boolean;
}

const PULL_FAILURES = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull']);

function withoutPod(job: JobObject, now: Date, podGraceMs: number): Waiting {
  const name = job.metadata.name;
  const created = Date.parse(job.metadata.creationTimestamp ?? '') || now.getTime();
  if (now.getTime() - created < podGraceMs) return { message: runningMessage(job.metadata.labels?.[LABEL.stage] ?? '', name), recheck: true };
  return { message: `Job ${name} has no pod (a quota or Pod Security refusal; kubectl describe job ${name} -n ${job.metadata.namespace ?? ''} shows it)`, recheck: false, pending: true };
}

function pullFailure(pod: PodObject): string | undefined {
  for (const c of pod.status?.containerStatuses ?? []) {
    const waiting = c.state?.waiting;
    if (waiting?.reason && PULL_FAILURES.has(waiting.reason)) return `${waiting.reason}: ${waiting.message ?? ''}`.trimEnd();
  }
  return undefined;
}

export function describeWaiting(job: JobObject, pods: readonly PodObject[], now: Date, podGraceMs: number): Waiting {
  const name = job.metadata.name;
  const pod = pods.find((p) => !p.metadata.deletionTimestamp) ?? pods[0];
  if (!pod) return withoutPod(job, now, podGraceMs);
  const unscheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  if (unscheduled) return { message: `Job ${name} is not scheduled: ${unscheduled.message ?? unscheduled.reason ?? 'no reason given'}`, recheck: false, pending: true };
  const pull = pullFailure(pod);
  if (pull) return { message: `Job ${name}: ${pull}`, recheck: false, pending: true };
  return { message: runningMessage(job.metadata.labels?.[LABEL.stage] ?? '', name), recheck: false };
}

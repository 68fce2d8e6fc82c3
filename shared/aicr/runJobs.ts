// What a run's Job and Pod say about it: whether and when it finished, how its container
// exited, and the verdict the control plane wrote onto its Job (so a run is judged only once).
import { ANNOTATION, NAMESPACES } from '../api/constants.ts';
import { KIND, type JobObject, type PodObject } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Stage } from './stages.ts';
import { type Verdict, describeExit, isVerdict } from './verdict.ts';

export interface Failure {
  readonly job: JobObject;
  readonly verdict: Verdict;
  readonly exitCode: number | undefined;
  readonly tail: string;
  readonly finishedAt: number;
}

export type RunVerdict = Pick<Failure, 'verdict' | 'exitCode' | 'tail'>;

// The Job controller says how a run ended twice: SuccessCriteriaMet (FailureTarget) as soon as it
// knows, then Complete (Failed) once every Pod has stopped. The first is enough to act on, a
// moment sooner and with one look where two would say the same.
const ENDED_BY = { Complete: ['SuccessCriteriaMet', 'Complete'], Failed: ['FailureTarget', 'Failed'] } as const;

export type JobEnd = keyof typeof ENDED_BY;

function endCondition(job: JobObject, end: JobEnd) {
  const types: readonly string[] = ENDED_BY[end];
  return job.status?.conditions?.find((c) => types.includes(c.type) && c.status === 'True');
}

export const isFinished = (job: JobObject, end: JobEnd): boolean => endCondition(job, end) !== undefined;

/** How the run ended, if it did: what a watch of its Job needs to know. */
export function jobEnd(job: JobObject): JobEnd | undefined {
  return isFinished(job, 'Failed') ? 'Failed' : isFinished(job, 'Complete') ? 'Complete' : undefined;
}

export function finishedAt(job: JobObject): number {
  const failed = endCondition(job, 'Failed');
  return (
    Date.parse(failed?.lastTransitionTime ?? job.status?.completionTime ?? job.metadata.creationTimestamp ?? '') || 0
  );
}

export async function podsOf(kube: KubePort, job: JobObject): Promise<PodObject[]> {
  const pods = await kube.list(KIND.pod, {
    namespace: job.metadata.namespace ?? NAMESPACES.jobs,
    labelSelector: `job-name=${job.metadata.name}`,
  });
  return pods.items;
}

export function exitOf(pod: PodObject | undefined): { exitCode: number | undefined; output: string } {
  const terminated = pod?.status?.containerStatuses?.find((c) => c.name === 'aicr')?.state?.terminated;
  return { exitCode: terminated?.exitCode, output: terminated?.message ?? '' };
}

export function jobFailureText(job: JobObject): string {
  const failed = endCondition(job, 'Failed');
  return failed ? `the Job failed: ${failed.reason ?? ''} ${failed.message ?? ''}`.trim() : 'its pod is gone';
}

export function recordedFailure(job: JobObject): Failure | undefined {
  const a = job.metadata.annotations ?? {};
  const verdict = a[ANNOTATION.verdict];
  if (!isVerdict(verdict)) return undefined;
  const code = a[ANNOTATION.exitCode];
  return {
    job,
    verdict,
    exitCode: code === undefined || code === '' ? undefined : Number(code),
    tail: a[ANNOTATION.errorTail] ?? '',
    finishedAt: finishedAt(job),
  };
}

export async function recordVerdict(kube: KubePort, job: JobObject, v: RunVerdict): Promise<void> {
  await kube.patch(KIND.job, job.metadata.name, job.metadata.namespace, {
    // Conditional on what was read, so two deciders cannot both record (and announce) the same run.
    metadata: {
      resourceVersion: job.metadata.resourceVersion,
      annotations: {
        [ANNOTATION.verdict]: v.verdict,
        [ANNOTATION.exitCode]: v.exitCode === undefined ? '' : String(v.exitCode),
        [ANNOTATION.errorTail]: v.tail,
      },
    },
  });
}

export function failureSummary(stage: Stage, f: Failure): string {
  return `Job ${f.job.metadata.name}: ${describeExit(stage, f.exitCode)}${f.tail ? `: ${f.tail}` : ''}`;
}

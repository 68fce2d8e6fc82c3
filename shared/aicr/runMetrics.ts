// The metrics of AICR runs (./observability/metrics.ts): each finished Job by stage, result and
// exit code, and how long a Job has waited without running. Job names never become dimensions.
import { LABEL } from '../api/constants.ts';
import type { JobObject } from '../kube/kinds.ts';
import type { Logger } from '../observability/log.ts';
import { METRIC } from '../observability/metrics.ts';

/** How often a Job that is not running is looked at again, which keeps its pending gauge current. */
export const PENDING_RECHECK_MS = 5 * 60_000;

export function jobFinished(
  log: Logger | undefined,
  stage: string,
  result: 'Succeeded' | 'Failed',
  exitCode: number | undefined,
): void {
  const ExitCode = exitCode === undefined ? 'none' : String(exitCode);
  log?.metric({ metric: METRIC.aicrJobs, value: 1, dimensions: { Stage: stage, Result: result, ExitCode } });
}

/** Seconds since the Job was made: the waiting time of a run that has not started. */
export function jobPending(log: Logger | undefined, job: JobObject, now: Date): void {
  const created = Date.parse(job.metadata.creationTimestamp ?? '') || now.getTime();
  const stage = job.metadata.labels?.[LABEL.stage] ?? 'unknown';
  log?.metric({
    metric: METRIC.aicrJobPending,
    value: Math.max(0, (now.getTime() - created) / 1000),
    dimensions: { Stage: stage },
  });
}

// One log line and one metric for an API server the function cannot talk to, wherever a request
// failed that way: not reached at all (the line names the likely network causes), or refused so
// that not even the step's stall could be written (the line names the identity's access). The
// metric is what the kube-unreachable alarm watches: in both cases no condition can say so.
// Conditions are left alone; the work is retried (runbook: API server errors).
import { KubeRequestError, KubeUnreachableError } from '../errors.ts';
import type { Logger } from './log.ts';
import { METRIC } from './metrics.ts';

export function reportIfUnreachable(err: unknown, log: Logger): void {
  if (!(err instanceof KubeUnreachableError)) return;
  log.error('kubernetes api unreachable', { server: err.server, failure: err.failure, error: err.message });
  log.metric({ metric: METRIC.kubeUnreachable, value: 1 });
}

/** The likely fix for an identity the API server refuses, by its answer. */
function accessHint(status: number | undefined): string {
  if (status === 401) return "the function's IAM role has no EKS access entry (or its token is not accepted)";
  if (status === 403) return "the step's Kubernetes group lacks the chart's RBAC for the runtime's status";
  return 'the API server refuses the write';
}

/** A stall the step could not write: the runtime cannot show it, so the log and the alarm must. */
export function reportUnwritableStall(reason: string, err: unknown, log: Logger): void {
  const refusal = err instanceof KubeRequestError ? err : undefined;
  const status = refusal?.status;
  log.error('stall not written: kubernetes api refused the runtime status write', {
    reason,
    ...(status === undefined ? {} : { httpStatus: status }),
    ...(refusal?.identity ? { identity: refusal.identity } : {}),
    likelyCause: accessHint(status),
  });
  log.metric({ metric: METRIC.kubeUnreachable, value: 1 });
}

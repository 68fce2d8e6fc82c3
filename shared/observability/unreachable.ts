// One log line and one metric for an API server the function cannot reach, wherever a request
// failed that way: the line names the likely causes, the metric is what the kube-unreachable
// alarm watches. Conditions are left alone; the work is retried (runbook: API server errors).
import { KubeUnreachableError } from '../errors.ts';
import type { Logger } from './log.ts';
import { METRIC } from './metrics.ts';

export function reportIfUnreachable(err: unknown, log: Logger): void {
  if (!(err instanceof KubeUnreachableError)) return;
  log.error('kubernetes api unreachable', { server: err.server, failure: err.failure, error: err.message });
  log.metric({ metric: METRIC.kubeUnreachable, value: 1 });
}

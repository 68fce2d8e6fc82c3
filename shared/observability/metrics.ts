// Every metric the control plane emits: its name, unit and dimension sets, in one place. The
// alarms and the dashboard in serverless.yml name these, and a test checks each alarm's metric
// and dimensions are ones listed here. Lines are CloudWatch's embedded metric format (EMF),
// built by Powertools Metrics and written through the logger: on AWS CloudWatch extracts the
// metric from the log line, and in local mode the same numbers are in the log.
//
// Dimensions stay low in cardinality: the service, a step, a stage, a result, an exit code. Never a
// plan digest, a Job name, a run ID or a message ID (those go on the line as plain fields, where
// logs can be searched for them).
import { Metrics } from '@aws-lambda-powertools/metrics';
import { TOKEN_EXPIRY_METRIC } from '../api/constants.ts';
import { REASON_CLASS, type Reason, reasonRow } from '../api/reasons.ts';

export const METRICS_NAMESPACE = 'aicr-control-plane';

export type MetricUnit = 'Count' | 'Seconds' | 'Milliseconds';

export interface MetricDef {
  readonly name: string;
  readonly unit: MetricUnit;
  /** Dimension sets besides `service`, which every set starts with; [] is `service` alone. */
  readonly sets: readonly (readonly string[])[];
}

const SERVICE_ONLY: readonly string[] = [];

export const METRIC = {
  /**
   * Counts, one per stall class: how many runtimes' domain conditions show a reason of that class
   * (./stallCounts.ts).
   */
  stalledNeedsPerson: { name: 'StalledNeedsPerson', unit: 'Count', sets: [SERVICE_ONLY] },
  stalledRetrying: { name: 'StalledRetrying', unit: 'Count', sets: [SERVICE_ONLY] },
  awaitingApproval: { name: 'AwaitingApproval', unit: 'Count', sets: [SERVICE_ONLY] },
  credentialsStale: { name: 'RegistryCredentialsStale', unit: 'Count', sets: [SERVICE_ONLY] },
  /** When Argo CD's registry token expires, as a Unix time (the runbook's metric name). */
  tokenExpiry: { name: TOKEN_EXPIRY_METRIC, unit: 'Seconds', sets: [SERVICE_ONLY] },
  /**
   * One per finished AICR Job: by Result (Succeeded, Failed), and by stage and exit code (0 on
   * success). Sets never share a dimension: Powertools warns when they do.
   */
  aicrJobs: { name: 'AicrJobs', unit: 'Count', sets: [['Result'], ['Stage', 'ExitCode']] },
  /** How long an AICR Job has waited without running (unscheduled, image pull failing, no Pod). */
  aicrJobPending: { name: 'AicrJobPendingSeconds', unit: 'Seconds', sets: [SERVICE_ONLY, ['Stage']] },
  /** One per rollout that reached an outcome: Succeeded, Failed, Expired, Revoked or Superseded. */
  rollouts: { name: 'Rollouts', unit: 'Count', sets: [['Outcome']] },
  /** Age of the message a step is handling, from when it was sent. */
  messageAge: { name: 'MessageAgeSeconds', unit: 'Seconds', sets: [['Step']] },
  /** How long one step run took, status write included. */
  reconcileDuration: { name: 'ReconcileDuration', unit: 'Milliseconds', sets: [['Step']] },
  /** A message that cannot be processed at all, failing its last delivery: the queue dead-letters it. */
  deadLettered: { name: 'DeadLettered', unit: 'Count', sets: [SERVICE_ONLY, ['Step']] },
  /** A Kubernetes request that could not reach the API server (connect failed or no answer in time). */
  kubeUnreachable: { name: 'KubeApiUnreachable', unit: 'Count', sets: [SERVICE_ONLY] },
  /** One per forwarder window that ran to its end: the forwarder's heartbeat. */
  forwarderWindows: { name: 'ForwarderWindows', unit: 'Count', sets: [SERVICE_ONLY] },
  /** Time from a change reaching the forwarder to its message being sent. */
  forwarderLag: { name: 'ForwarderLagMilliseconds', unit: 'Milliseconds', sets: [SERVICE_ONLY] },
  /** How late the relay forwarded a delayed message, past the time it was due. */
  relayLateness: { name: 'RelayLatenessSeconds', unit: 'Seconds', sets: [SERVICE_ONLY] },
} as const satisfies Record<string, MetricDef>;

/**
 * The function setting that says whether a step run's timings (ReconcileDuration,
 * MessageAgeSeconds) go out as metrics or only as fields of its `step run` line. Only the
 * dashboard plots them and the free Lambda and SQS metrics say much the same, while their series
 * are most of an idle deployment's bill, so the template sends them with the dashboard alone.
 */
export const STEP_TIMING_METRICS_SETTING = 'AICR_STEP_TIMING_METRICS';

export function sendsStepTimingMetrics(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[STEP_TIMING_METRICS_SETTING] !== 'false';
}

export const METRIC_NAMES: ReadonlySet<string> = new Set(Object.values(METRIC).map((m) => m.name));

/**
 * The stall gauges and which reasons count for each; a reason of a stalled class not named here
 * counts by its class.
 */
export const STALL_GAUGES = [
  { metric: METRIC.awaitingApproval, reasons: ['AwaitingApproval', 'AwaitingAcknowledgement'] },
  { metric: METRIC.credentialsStale, reasons: ['RegistryCredentialsStale'] },
  { metric: METRIC.stalledNeedsPerson, class: REASON_CLASS.stalledWaiting },
  { metric: METRIC.stalledRetrying, class: REASON_CLASS.stalledRetrying },
] as const satisfies readonly { metric: MetricDef; reasons?: readonly Reason[]; class?: string }[];

/** The stall gauge a reason counts toward, or undefined for a reason that is no stall. */
export function stallGaugeOf(reason: string): MetricDef | undefined {
  const named = STALL_GAUGES.find((g) => 'reasons' in g && (g.reasons as readonly string[]).includes(reason));
  if (named) return named.metric;
  const cls = reasonRow(reason)?.class;
  return STALL_GAUGES.find((g) => 'class' in g && g.class === cls)?.metric;
}

export interface MetricPoint {
  readonly metric: MetricDef;
  readonly value: number;
  /** Values of the metric's dimensions (every name in its sets). */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** More metrics of the same dimensions on the same line. */
  readonly more?: readonly { readonly metric: MetricDef; readonly value: number }[];
  /** Plain fields on the line: searchable in logs, never dimensions. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** A point's numbers and dimensions as plain log fields: searchable in the log, no metric series. */
export function plainFields(point: MetricPoint): Record<string, number | string> {
  const numbers = [{ metric: point.metric, value: point.value }, ...(point.more ?? [])].map(
    (m) => [m.metric.name, m.value] as const,
  );
  return { ...point.dimensions, ...Object.fromEntries(numbers) };
}

/** The EMF fields of one point: `_aws`, the dimension values, the metric values and metadata. */
export function emfFields(point: MetricPoint, service: string): Record<string, unknown> {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service });
  const dims = point.dimensions ?? {};
  for (const set of point.metric.sets) {
    if (set.length === 0) continue;
    metrics.addDimensions(Object.fromEntries(set.map((d) => [d, dims[d] ?? 'unknown'])));
  }
  for (const m of [{ metric: point.metric, value: point.value }, ...(point.more ?? [])])
    metrics.addMetric(m.metric.name, m.metric.unit, m.value);
  for (const [k, v] of Object.entries(point.metadata ?? {})) metrics.addMetadata(k, v);
  const out = metrics.serializeMetrics() as Record<string, unknown> & {
    _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
  };
  // Powertools leaves `service` alone out once another set is added; a set of [] asks for it.
  if (point.metric.sets.some((s) => s.length === 0) && point.metric.sets.length > 1) {
    for (const cw of out._aws.CloudWatchMetrics) cw.Dimensions.unshift(['service']);
  }
  return out;
}

// AWS list prices the cost figures use, in one place, with the date they were read. us-east-1,
// before free tiers (which are per account, so a fleet shares them). Where AWS's own page gave
// no number the source is a 2026 third-party price guide; see docs/observability.md#cost.
export const PRICES = {
  date: '2026-11-30',
  region: 'us-east-1',
  /** Lambda arm64 duration, $ per GB-second (first 7.5 B GB-s a month). */
  lambdaArmGbSecond: 0.0000133334,
  /** Lambda requests, $ per million. */
  lambdaRequestsPerMillion: 0.2,
  /** SQS FIFO requests, $ per million (each 64 KB chunk one request). */
  sqsFifoPerMillion: 0.5,
  /** SQS standard requests, $ per million (the delay queue). */
  sqsStandardPerMillion: 0.4,
  /** EventBridge Scheduler invocations, $ per million (14 M a month free). */
  schedulerPerMillion: 1.0,
  /** CloudWatch custom metric, $ per metric-month, prorated by the hours it is sent. */
  customMetricMonth: 0.3,
  /** CloudWatch standard-resolution alarm, $ per metric in the alarm per month. */
  alarmMetricMonth: 0.1,
  /** CloudWatch dashboard, $ per month (3 free per account). */
  dashboardMonth: 3.0,
  /** CloudWatch Logs ingestion, $ per GB. */
  logsIngestGb: 0.5,
  /** Interface VPC endpoint, $ per endpoint per AZ-hour, plus $0.01 per GB processed. */
  vpcEndpointAzHour: 0.01,
  /** NAT gateway, $ per hour (the alternative to endpoints). */
  natGatewayHour: 0.045,
  /** A Kubernetes pod's share of an m7g.large node (2 vCPU, 8 GiB, $0.0816 an hour on demand): 50 m CPU, 128 Mi. */
  operatorPodShareHour: 0.0816 * Math.max(0.05 / 2, 0.125 / 8),
} as const;

/** Hours in an average month (365 × 24 / 12). */
export const MONTH_HOURS = 730;

/**
 * Receives a Lambda event source mapping makes on an idle queue: pollers long-poll for 20 s, so
 * each makes 3 a minute; AWS scales idle pollers down to 2 (when no maximumConcurrency is set).
 * Field reports measured up to 15 a minute; the bench shows that as the upper bound.
 */
export const IDLE_RECEIVES_PER_MINUTE = { floor: 6, fieldReport: 15 } as const;

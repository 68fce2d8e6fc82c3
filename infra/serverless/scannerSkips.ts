// What Checkov (SEC-10) reports on the packaged template and the deployment leaves as it is: each
// skip sits on the resource it is about, in its Metadata, with a one-line reason; docs/security.md
// says more. A finding with no skip here fails the suite, so each skip is a decision, not a default.

export interface ScannerSkip {
  readonly id: string;
  readonly comment: string;
}

const skip = (id: string, comment: string): ScannerSkip => ({ id, comment });

/** A reserved concurrency, on any function. */
const RESERVED_CONCURRENCY = skip(
  'CKV_AWS_115',
  'Its trigger bounds it (FIFO message groups, one start a minute); a reservation would turn throttled SQS batches ' +
    'into dead letters, and fails to deploy on accounts with a low concurrency quota',
);
/** Lambda encrypts environments at rest itself; the check asks for a key of the customer's. */
const ENVIRONMENT_KEY = skip(
  'CKV_AWS_173',
  "Names, URLs and the cluster's public CA, no secret; Lambda encrypts it at rest; a customer-managed key costs " +
    '$1 a month (idle budget $3)',
);
/** A function DLQ keeps failed asynchronous invocations, which queue-fed functions never have. */
const QUEUE_FED_DLQ = skip(
  'CKV_AWS_116',
  "Invoked synchronously by its SQS event source mapping; what it cannot handle goes to its queue's dead-letter queue",
);
const SCHEDULED_DLQ = skip(
  'CKV_AWS_116',
  "A scheduled start carries nothing to keep: the next minute's replaces a failed one, and Scheduler's dead-letter " +
    'queue keeps starts it could not make',
);
const RELAY_VPC = skip(
  'CKV_AWS_117',
  'Talks to SQS and Scheduler only, never the cluster; in a VPC it would need a NAT gateway or endpoints, ' +
    'billed monthly',
);

/** The step functions, fed by their queues. */
export const STEP_FUNCTION_SKIPS = [RESERVED_CONCURRENCY, QUEUE_FED_DLQ, ENVIRONMENT_KEY] as const;
export const FORWARDER_SKIPS = [RESERVED_CONCURRENCY, SCHEDULED_DLQ, ENVIRONMENT_KEY] as const;
export const RELAY_SKIPS = [RESERVED_CONCURRENCY, QUEUE_FED_DLQ, RELAY_VPC, ENVIRONMENT_KEY] as const;
export const LOG_GROUP_SKIPS = [
  skip(
    'CKV_AWS_158',
    'CloudWatch Logs encrypts at rest itself; a customer-managed key costs $1 a month, past the $3 idle budget',
  ),
] as const;
export const QUEUE_SKIPS = [
  skip(
    'CKV_AWS_27',
    'Encrypted at rest with SQS-managed keys (SqsManagedSseEnabled), which the check does not count; a KMS key ' +
      'bills per month or per request for the same',
  ),
] as const;
export const DEPLOYMENT_BUCKET_SKIPS = [
  skip(
    'CKV_AWS_18',
    'Holds only the code each deploy writes, never public; access logs would need a second bucket that grows monthly',
  ),
] as const;

/** A resource's Metadata holding the skips, in the layout Checkov reads (Metadata.checkov.skip). */
export function skipMetadata(skips: readonly ScannerSkip[]): string[] {
  return [
    'Metadata:',
    '  checkov:',
    '    skip:',
    ...skips.flatMap((s) => [`      - id: ${s.id}`, `        comment: ${JSON.stringify(s.comment)}`]),
  ];
}

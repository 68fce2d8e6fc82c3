// What the function harness (functionAwsCalls.ts) reports of each call, and the IAM actions each
// kind of call is authorized by, shared by the harness and the tests that read its results.

export interface CallResult {
  readonly fn: string;
  readonly call: string;
  /** The IAM actions AWS authorizes the call by (dependent actions included). */
  readonly actions: readonly string[];
  readonly ok: boolean;
  readonly error?: string;
}

/** The actions each kind of call needs, named once for the harness and the test. */
export const ACTIONS = {
  send: ['sqs:SendMessage'],
  armTimer: ['scheduler:CreateSchedule', 'iam:PassRole'],
  moveTimer: ['scheduler:UpdateSchedule', 'iam:PassRole'],
  sweepTimers: ['scheduler:ListSchedules', 'scheduler:DeleteSchedule'],
  describeFleetCluster: ['eks:DescribeCluster'],
  createRepository: ['ecr:CreateRepository'],
  mintToken: ['ecr:GetAuthorizationToken'],
  poll: ['sqs:ReceiveMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage'],
  logs: ['logs:CreateLogStream', 'logs:PutLogEvents'],
  putEvents: ['events:PutEvents'],
} as const;

/**
 * Whether AWS (here, the emulator) refused a call on IAM grounds. The emulator answers a refusal in
 * XML even to JSON-protocol clients, whose SDK then fails to parse it: its status still says 403.
 */
export function refusedByIam(err: unknown): boolean {
  const e = err as
    | {
        name?: unknown;
        message?: unknown;
        $metadata?: { httpStatusCode?: number };
        $response?: { statusCode?: number };
      }
    | undefined;
  return (
    /AccessDenied|not authorized/.test(`${String(e?.name)} ${String(e?.message)}`) ||
    e?.$metadata?.httpStatusCode === 403 ||
    e?.$response?.statusCode === 403
  );
}

/** One line for a failed call: its error, and whether it was an IAM refusal. */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message.split('\n')[0] ?? ''}` : String(err);
  if (!refusedByIam(err)) return text;
  // The SDK's parse error says nothing of the refusal it could not read.
  return err instanceof SyntaxError ? 'refused by IAM (HTTP 403, AccessDenied)' : `refused by IAM (${text})`;
}

// The per-queue parts of serverless.yml, one function per part, each returning its lines as
// they sit under the template's marker (the marker's indentation is added by render.ts).
import { MAX_RECEIVES } from '../../shared/queue/deliveryPolicy.ts';
import { STEP_TIMING_METRICS_SETTING } from '../../shared/observability/metrics.ts';
import { QUEUE_URL_BASE_SETTING, stepQueueName } from '../../shared/steps/table.ts';
import type { QueueView } from './queues.ts';
import { LOG_GROUP_SKIPS, QUEUE_SKIPS, STEP_FUNCTION_SKIPS, skipMetadata } from './scannerSkips.ts';

/**
 * AWS's advice for a queue that feeds Lambda: the poller's retries of a throttled batch stay hidden
 * from a second receive.
 */
const VISIBILITY_PER_TIMEOUT = 6;
const EKS_SETTINGS = [
  'AICR_EKS_CLUSTER_NAME: ${param:eksClusterName}',
  'AICR_EKS_ENDPOINT: ${param:eksEndpoint}',
  'AICR_EKS_CA_DATA: ${param:eksCaData}',
];
/** A run's timings become metric series only where the dashboard plots them (shared/observability/metrics.ts). */
const TIMING_SETTING = `${STEP_TIMING_METRICS_SETTING}: !If [WithDashboard, 'true', 'false']`;
const indent = (n: number, lines: readonly string[]): string[] =>
  lines.map((l) => (l === '' ? l : `${' '.repeat(n)}${l}`));

export function stepFunction(v: QueueView): string[] {
  return [
    `${v.queue}:`,
    `  handler: functions/${v.queue}.handler`,
    `  description: ${v.description}`,
    `  timeout: ${v.timeoutSeconds}`,
    `  role: ${v.stem}Role`,
    '  environment:',
    ...indent(4, [
      `${v.settings.url}: !Ref ${v.stem}Queue`,
      `${v.settings.arn}: !GetAtt ${v.stem}Queue.Arn`,
      'AICR_DELAY_QUEUE_URL: !Ref DelayQueue',
      'AICR_TIMER_GROUP: !Ref TimerGroup',
      'AICR_TIMER_ROLE_ARN: !GetAtt TimerTargetRole.Arn',
      'AICR_TIMER_DLQ_ARN: !GetAtt DelayDlq.Arn',
      ...v.environment.map(([k, value]) => `${k}: ${value}`),
      TIMING_SETTING,
      ...EKS_SETTINGS,
    ]),
    '  events:',
    '    - sqs:',
    `        arn: !GetAtt ${v.stem}Queue.Arn`,
    '        batchSize: 10',
    '        functionResponseType: ReportBatchItemFailures',
  ];
}

/**
 * The step queues' URL base, for the functions that send to every step queue: the first queue's
 * URL (its Ref) cut at that queue's own name, so the base is whatever URL SQS gives the queues in
 * this partition (or an emulator), and one setting stands for a URL per queue.
 */
export function queueUrlBaseSetting(views: readonly QueueView[]): string {
  const [first] = views;
  if (!first) throw new Error('no step queue to take the URL base from');
  return `${QUEUE_URL_BASE_SETTING}: !Select [0, !Split ['${stepQueueName(first.queue)}', !Ref ${first.stem}Queue]]`;
}

/** What the template adds to a step's function and log group, which serverless makes: the VPC, the scanner's skips. */
export function functionExtension(v: QueueView): string[] {
  return [
    `${v.functionResource}:`,
    '  Properties:',
    '    VpcConfig: !If [InVpc, { SubnetIds: !Ref VpcSubnetIds, SecurityGroupIds: !Ref VpcSecurityGroupIds }, ' +
      '!Ref AWS::NoValue]',
    ...indent(2, skipMetadata(STEP_FUNCTION_SKIPS)),
    `${v.functionResource.replace(/LambdaFunction$/, 'LogGroup')}:`,
    ...indent(2, skipMetadata(LOG_GROUP_SKIPS)),
  ];
}

export function stepQueue(v: QueueView): string[] {
  return [
    `${v.stem}Queue:`,
    '  Type: AWS::SQS::Queue',
    ...indent(2, skipMetadata(QUEUE_SKIPS)),
    '  Properties:',
    '    # Encrypted at rest with SQS-managed keys, said here rather than left to the account default.',
    '    SqsManagedSseEnabled: true',
    `    QueueName: \${self:service}-\${sls:stage}-${stepQueueName(v.queue)}`,
    '    FifoQueue: true',
    "    # Scheduler cannot set a deduplication ID; the control plane's own sends still do.",
    '    ContentBasedDeduplication: true',
    `    # Six times the ${v.queue} function's ${v.timeoutSeconds} s timeout.`,
    `    VisibilityTimeout: ${VISIBILITY_PER_TIMEOUT * v.timeoutSeconds}`,
    '    MessageRetentionPeriod: 345600',
    '    RedrivePolicy:',
    '      deadLetterTargetArn: !GetAtt StepDlq.Arn',
    `      maxReceiveCount: ${MAX_RECEIVES}`,
  ];
}

function roleStatements(v: QueueView): string[] {
  return [
    '# Writing its own log group only.',
    '- Effect: Allow',
    '  Action: [logs:CreateLogStream, logs:PutLogEvents]',
    '  Resource: !Sub arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:' +
      `log-group:/aws/lambda/\${self:service}-\${sls:stage}-${v.queue}:*`,
    `# The event source mapping reads and deletes from the ${v.queue} queue.`,
    '- Effect: Allow',
    '  Action: [sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes, sqs:ChangeMessageVisibility]',
    `  Resource: !GetAtt ${v.stem}Queue.Arn`,
    `# ${v.sends}: immediate ones to the FIFO queue, delayed ones to the delay queue.`,
    '- Effect: Allow',
    '  Action: sqs:SendMessage',
    `  Resource: [!GetAtt ${v.stem}Queue.Arn, !GetAtt DelayQueue.Arn]`,
    `# ${v.timers}: one-time schedules in the stack's own group.`,
    '- Effect: Allow',
    '  Action: [scheduler:CreateSchedule, scheduler:UpdateSchedule]',
    '  Resource: !Sub arn:${AWS::Partition}:scheduler:${AWS::Region}:${AWS::AccountId}:schedule/${TimerGroup}/*',
    '- Effect: Allow',
    '  Action: iam:PassRole',
    '  Resource: !GetAtt TimerTargetRole.Arn',
    '  Condition:',
    '    StringEquals: { iam:PassedToService: scheduler.amazonaws.com }',
    ...v.statements,
  ];
}

export function stepRole(v: QueueView): string[] {
  return [
    `${v.stem}Role:`,
    '  Type: AWS::IAM::Role',
    '  Properties:',
    '    AssumeRolePolicyDocument:',
    "      Version: '2012-10-17'",
    '      Statement:',
    '        - Effect: Allow',
    '          Principal: { Service: lambda.amazonaws.com }',
    '          Action: sts:AssumeRole',
    '    Policies:',
    `      - PolicyName: ${v.queue}`,
    '        PolicyDocument:',
    "          Version: '2012-10-17'",
    '          Statement:',
    ...indent(12, roleStatements(v)),
  ];
}

export function accessEntry(v: QueueView): string[] {
  return [
    `${v.stem}AccessEntry:`,
    '  Type: AWS::EKS::AccessEntry',
    '  Properties:',
    '    ClusterName: ${param:eksClusterName}',
    `    PrincipalArn: !GetAtt ${v.stem}Role.Arn`,
    '    Type: STANDARD',
    `    KubernetesGroups: [${v.groups.map((g) => `'${g}'`).join(', ')}]`,
    '',
  ];
}

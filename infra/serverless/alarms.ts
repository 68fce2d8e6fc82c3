// The per-queue parts of serverless.yml's alarms, dashboard and outputs.
import { METRIC, METRICS_NAMESPACE } from '../../shared/observability/metrics.ts';
import type { QueueView } from './queues.ts';

const SERVICE = '${self:service}-${sls:stage}';

/** A metric query Id: starts with a lower-case letter and has no hyphen. */
export const queryId = (v: QueueView): string => v.queue.replace(/-/g, '_');

export function oldestMessageQuery(v: QueueView): string[] {
  return [
    `- Id: ${queryId(v)}`,
    '  ReturnData: false',
    '  MetricStat:',
    '    Stat: Maximum',
    '    Period: 300',
    '    Metric:',
    '      Namespace: AWS/SQS',
    '      MetricName: ApproximateAgeOfOldestMessage',
    '      Dimensions:',
    '        - Name: QueueName',
    `          Value: !GetAtt ${v.stem}Queue.QueueName`,
  ];
}

function lambdaQuery(id: string, metric: string, fn: string): string[] {
  return [
    `  - Id: ${id}`,
    '    ReturnData: false',
    '    MetricStat:',
    '      Stat: Sum',
    '      Period: 300',
    '      Metric:',
    '        Namespace: AWS/Lambda',
    `        MetricName: ${metric}`,
    '        Dimensions:',
    '          - Name: FunctionName',
    `            Value: ${SERVICE}-${fn}`,
  ];
}

export function functionAlarm(v: QueueView): string[] {
  return [
    `${v.stem}FunctionAlarm:`,
    '  Type: AWS::CloudWatch::Alarm',
    '  Condition: WithDetailedAlarms',
    '  Properties:',
    `    AlarmName: ${SERVICE}-${v.queue}-errors`,
    `    AlarmDescription: 'Function ${v.queue} failed or was throttled in two of three 5-minute periods. ` +
      "See docs/troubleshooting.md#alarm-function-errors'",
    '    Metrics:',
    '      - Id: total',
    "        Expression: 'e + t'",
    `        Label: ${v.queue}-errors`,
    '        ReturnData: true',
    ...lambdaQuery('e', 'Errors', v.queue).map((l) => `    ${l}`),
    ...lambdaQuery('t', 'Throttles', v.queue).map((l) => `    ${l}`),
    '    EvaluationPeriods: 3',
    '    DatapointsToAlarm: 2',
    '    Threshold: 1',
    '    ComparisonOperator: GreaterThanOrEqualToThreshold',
    '    TreatMissingData: notBreaching',
    '    AlarmActions: !If [HasPageTopic, [!Ref PageTopicArn], !Ref AWS::NoValue]',
    '    OKActions: !If [HasPageTopic, [!Ref PageTopicArn], !Ref AWS::NoValue]',
  ];
}

/** The dashboard's lines of one per-step metric, one per step (its Step dimension). */
export function stepMetricLines(views: readonly QueueView[], metric: keyof typeof METRIC): string {
  return views
    .flatMap((v) => v.steps)
    .map((step) => JSON.stringify([METRICS_NAMESPACE, METRIC[metric].name, 'service', SERVICE, 'Step', step]))
    .join(',');
}

export function functionErrorLines(views: readonly QueueView[]): string {
  return views.map((v) => JSON.stringify(['AWS/Lambda', 'Errors', 'FunctionName', `${SERVICE}-${v.queue}`])).join(',');
}

export const roleArnOutput = (v: QueueView): string[] => [`${v.stem}RoleArn:`, `  Value: !GetAtt ${v.stem}Role.Arn`];
export const queueUrlOutput = (v: QueueView): string[] => [`${v.stem}QueueUrl:`, `  Value: !Ref ${v.stem}Queue`];

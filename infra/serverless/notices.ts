// The template's notification rules: with a noticeTopicArn given at deploy time, one EventBridge
// rule per kind of notification (shared/notifications/kinds.ts) sends it to that SNS topic. Each
// rule matches this deployment's own notifications only, so deployments can share a bus.
import { NOTICE_KIND, NOTICE_KINDS, NOTICE_SOURCE } from '../../shared/notifications/kinds.ts';

export const NOTICE_BUS = "${param:eventBusName, 'default'}";

export function noticeRules(): string[] {
  return NOTICE_KINDS.flatMap((kind) => {
    const k = NOTICE_KIND[kind];
    return [
      `Notice${k.rule}Rule:`,
      '  Type: AWS::Events::Rule',
      '  Condition: HasNoticeTopic',
      '  Properties:',
      `    Description: Sends the notification '${k.detailType}' (${k.when}) to the noticeTopicArn topic`,
      `    EventBusName: ${NOTICE_BUS}`,
      '    EventPattern:',
      `      source: ['${NOTICE_SOURCE}']`,
      `      detail-type: ['${k.detailType}']`,
      '      detail:',
      "        deployment: ['${self:service}-${sls:stage}']",
      '    Targets:',
      '      - Arn: !Ref NoticeTopicArn',
      '        Id: notice-topic',
    ];
  });
}

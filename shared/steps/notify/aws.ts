// The notify step's function in AWS: it puts notifications on one event bus and nowhere else.
import type { StepAws } from '../stepAws.ts';

export const NOTIFY_AWS: StepAws = {
  description:
    'Notify step - puts a notification on EventBridge when a rollout awaits approval, ' +
    'ends badly or starts a wait, and when the runtime is Released or newly Stalled',
  environment: { AICR_EVENT_BUS: "${param:eventBusName, 'default'}" },
  statements: [
    '# Notifications go to the one bus the deployment names (eventBusName), under its own source.',
    '- Effect: Allow',
    '  Action: events:PutEvents',
    '  Resource: !Sub arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:' +
      "event-bus/${param:eventBusName, 'default'}",
  ],
};

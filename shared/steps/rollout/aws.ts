// The rollout step's function in AWS: before a step writes a release it reads, with a token of
// its own, whether the registry still holds the chart manifests the plan pinned (SEC-5).
import type { StepAws } from '../stepAws.ts';

export const ROLLOUT_AWS: StepAws = {
  description: 'Rollout step - moves the runtime to its target plan through RuntimeRollouts',
  statements: [
    '# registry.auth.mode aws: an ECR token (no resource-level permissions exist for it)...',
    '- Effect: Allow',
    '  Action: ecr:GetAuthorizationToken',
    "  Resource: '*'",
    "# ...that only reads chart manifests under the repository prefix, to compare them with the plan's digests.",
    '- Effect: Allow',
    '  Action: ecr:BatchGetImage',
    '  Resource: !Sub arn:${AWS::Partition}:ecr:${AWS::Region}:${AWS::AccountId}:' +
      "repository/${param:registryPrefix, 'aicr'}/*",
  ],
};

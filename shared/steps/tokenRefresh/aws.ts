// The token-refresh step's function in AWS: the ECR token it writes for Argo CD carries this
// role's rights, so the role may only pull under the registry prefix (REG-4).
import { REGISTRY_PREFIX_SETTING, REGISTRY_PREFIX_VALUE } from '../../registry/prefix.ts';
import type { StepAws } from '../stepAws.ts';

export const TOKEN_REFRESH_AWS: StepAws = {
  description:
    "Token-refresh step - keeps Argo CD's registry credentials holding a fresh ECR token (registry.auth.mode aws)",
  timers: 'The 6-hourly refresh',
  // The prefix too, so no token is written for a registry.repository these rights do not reach.
  environment: { [REGISTRY_PREFIX_SETTING]: REGISTRY_PREFIX_VALUE },
  statements: [
    '# The token written for Argo CD (no resource-level permissions exist for the call)...',
    '- Effect: Allow',
    '  Action: ecr:GetAuthorizationToken',
    "  Resource: '*'",
    "# ...carries this role's rights, and Argo CD only pulls: the charts under the prefix, nothing else.",
    '- Effect: Allow',
    '  Action: [ecr:BatchGetImage, ecr:GetDownloadUrlForLayer, ecr:BatchCheckLayerAvailability]',
    '  Resource: !Sub arn:${AWS::Partition}:ecr:${AWS::Region}:${AWS::AccountId}:' +
      "repository/${param:registryPrefix, 'aicr'}/*",
  ],
};

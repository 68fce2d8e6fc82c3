// The resolve step's function in AWS: it creates repositories unless told not to, and pulls and
// pushes bundles and charts under the registry prefix (registry.auth.mode aws).
import { REGISTRY_PREFIX_SETTING, REGISTRY_PREFIX_VALUE } from '../../registry/prefix.ts';
import type { StepAws } from '../stepAws.ts';

export const RESOLVE_AWS: StepAws = {
  description: 'Resolve step - reports resolution status on the ClusterRuntime',
  // The prefix too, so a registry.repository outside it stalls before a push is refused.
  environment: {
    AICR_ECR_CREATE_REPOSITORIES: '!Ref CreateRepositories',
    [REGISTRY_PREFIX_SETTING]: REGISTRY_PREFIX_VALUE,
  },
  statements: [
    '# registry.auth.mode aws: an ECR token (no resource-level permissions exist for it)...',
    '- Effect: Allow',
    '  Action: ecr:GetAuthorizationToken',
    "  Resource: '*'",
    "# ...used only under the repository prefix: the bundle pull, the manifests charts, the render Job's push.",
    '- Effect: Allow',
    '  Action: [ecr:BatchGetImage, ecr:GetDownloadUrlForLayer, ecr:BatchCheckLayerAvailability, ' +
      'ecr:InitiateLayerUpload, ecr:UploadLayerPart, ecr:CompleteLayerUpload, ecr:PutImage]',
    '  Resource: !Sub arn:${AWS::Partition}:ecr:${AWS::Region}:${AWS::AccountId}:' +
      "repository/${param:registryPrefix, 'aicr'}/*",
    '# The repositories those pushes go to, created when missing (ECR makes none on push); ' +
      'off with createRepositories=false.',
    '- !If',
    '  - CreatesRepositories',
    '  - Effect: Allow',
    '    Action: ecr:CreateRepository',
    '    Resource: !Sub arn:${AWS::Partition}:ecr:${AWS::Region}:${AWS::AccountId}:' +
      "repository/${param:registryPrefix, 'aicr'}/*",
    '  - !Ref AWS::NoValue',
  ],
};

// The repositories resolution pushes to, created in ECR when they are missing. ECR creates no
// repository on push (unless a creation template covers the prefix), so without this the first
// chart push of a new prefix fails. Only in registry.auth.mode aws, and only while the
// deployment allows it (AICR_ECR_CREATE_REPOSITORIES, the deploy parameter createRepositories,
// whose IAM statement grants ecr:CreateRepository under the prefix alone).
import type { ECRClient } from '@aws-sdk/client-ecr';
import { ControlPlaneError, RegistryUnavailableError } from '../errors.ts';
import { awsClientOptions } from '../awsRequestTimeouts.ts';

/** The setting that turns creation off, for deployments whose repositories are made beforehand. */
export const CREATE_REPOSITORIES_SETTING = 'AICR_ECR_CREATE_REPOSITORIES';

/** ECR refused to create a repository under the prefix: a person must grant the right or create it. */
export class RepositoryCreationRefusedError extends ControlPlaneError {
  readonly repository: string;
  readonly kind = 'repository-creation-refused';
  constructor(repository: string) {
    super(
      `ecr refused to create repository ${repository} (access denied): allow the resolve function's role ` +
        'ecr:CreateRepository on it ' +
        `(deploy with createRepositories=true), or create it yourself`,
    );
    this.repository = repository;
  }
}

export type RepositoryCreator = (repository: string) => Promise<void>;

/** Whether this deployment creates missing repositories (on unless the setting says false). */
export function createsRepositories(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[CREATE_REPOSITORIES_SETTING] !== 'false';
}

let client: ECRClient | undefined;
/** Repositories known to exist, for as long as the function stays warm: each costs one call per container. */
const known = new Set<string>();

export const createEcrRepository: RepositoryCreator = async (repository) => {
  if (known.has(repository)) return;
  const { CreateRepositoryCommand, ECRClient: Client } = await import('@aws-sdk/client-ecr');
  client ??= new Client(awsClientOptions());
  try {
    // Mutable tags: a render for the same inputs rewrites its tag, and plans name digests anyway.
    await client.send(new CreateRepositoryCommand({ repositoryName: repository, imageTagMutability: 'MUTABLE' }));
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (name === 'AccessDeniedException' || status === 403) throw new RepositoryCreationRefusedError(repository);
    if (name !== 'RepositoryAlreadyExistsException')
      throw new RegistryUnavailableError(`creating ecr repository ${repository} failed (${name || 'unknown failure'})`);
  }
  known.add(repository);
};

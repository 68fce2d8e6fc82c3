// In registry.auth.mode aws the roles' ECR rights end at repository/<prefix>/* (the deploy
// parameter registryPrefix). A registry.repository outside it is refused on every push and pull,
// which resolution would only report as a bare Unauthorized and Argo CD as a ComparisonError
// until actionTimeout; checked before anything is pushed or written for Argo CD, the stall names
// both values and both ways out. Pure: the caller reads the setting and the configuration.
import type { Configuration } from '../configuration/schema.ts';
import { invalidConfigurationOutsidePrefix } from '../status/reasonMessages.resolved.ts';

/** The function setting that carries the deploy parameter (serverless.yml, shared/aws/environment.ts). */
export const REGISTRY_PREFIX_SETTING = 'AICR_REGISTRY_PREFIX';
/**
 * The deploy parameter itself, and its value as serverless.yml gives it to a function (its default
 * is the IAM statements').
 */
export const REGISTRY_PREFIX_PARAMETER = 'registryPrefix';
export const REGISTRY_PREFIX_VALUE = `\${param:${REGISTRY_PREFIX_PARAMETER}, 'aicr'}`;

export type PrefixCheck = { readonly under: true } | { readonly under: false; readonly message: string };

/** The deployment's prefix, or undefined where none is given (local mode): then nothing is checked. */
export function deploymentPrefix(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const prefix = (env[REGISTRY_PREFIX_SETTING] ?? '').replace(/^\/+|\/+$/g, '');
  return prefix === '' ? undefined : prefix;
}

/** `<host>[:port]/<path>` as the configuration schema has it: the first component is always the host. */
function split(repository: string): { readonly host: string; readonly path: string } {
  const slash = repository.indexOf('/');
  return slash < 0
    ? { host: repository, path: '' }
    : { host: repository.slice(0, slash), path: repository.slice(slash + 1) };
}

/**
 * Whether `<host>/<path>` lies under the prefix: the path is the prefix or goes on below it. A
 * bare string prefix would not do: `aicr-staging` is outside the rights on `aicr/*`.
 */
export function underPrefix(repository: string, prefix: string): PrefixCheck {
  const { host, path } = split(repository);
  if (path === prefix || path.startsWith(`${prefix}/`)) return { under: true };
  return {
    under: false,
    message: invalidConfigurationOutsidePrefix({
      repository,
      host,
      path,
      prefix,
      parameter: REGISTRY_PREFIX_PARAMETER,
    }),
  };
}

/** The prefix check as the steps need it: only in aws mode, with a repository, where the deployment gives a prefix. */
export function registryPrefixCheck(registry: Configuration['registry'], prefix: string | undefined): PrefixCheck {
  if (registry.auth.mode !== 'aws' || prefix === undefined || registry.repository === '') return { under: true };
  return underPrefix(registry.repository, prefix);
}

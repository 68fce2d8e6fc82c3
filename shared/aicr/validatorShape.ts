// The Job AICR v0.11.1's `aicr validate` makes for each deployment-phase validator, as its
// validator deployer builds it (pkg/validator/job) and the test cluster's audit log records it:
// one container named validator, the catalog's image at the release's tag, no command, one
// argument (the check's name), six environment variables of its own, and the run's snapshot and
// recipe ConfigMaps mounted read-only. The admission policy (SEC-1) admits that shape and no other.

/** The container AICR names in every validator Job. */
export const VALIDATOR_CONTAINER = 'validator';

/** The deployment-phase checks v0.11.1's catalog names; each is the validator's only argument. */
export const DEPLOYMENT_CHECKS = [
  'operator-health',
  'expected-resources',
  'gpu-operator-version',
  'check-nvidia-smi',
] as const;

/** What AICR sets in a validator's environment, by name (the catalog adds none in the deployment phase). */
export const VALIDATOR_ENV = [
  'AICR_SNAPSHOT_PATH',
  'AICR_RECIPE_PATH',
  'AICR_VALIDATOR_NAME',
  'AICR_VALIDATOR_PHASE',
  'AICR_RUN_ID',
  'AICR_NAMESPACE',
] as const;

/**
 * The run's ConfigMaps a validator reads, each by its volume name: mounted read-only at `path`
 * from the ConfigMap AICR names `<prefix><run ID>`.
 */
export const VALIDATOR_INPUTS = [
  { name: 'snapshot', path: '/data/snapshot', configMapPrefix: 'aicr-snapshot-' },
  { name: 'recipe', path: '/data/recipe', configMapPrefix: 'aicr-recipe-' },
] as const;

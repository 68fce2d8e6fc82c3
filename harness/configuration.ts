// The control plane's configuration on the test cluster, as the chart renders it from
// harness/chart-values.yaml: AICR v0.11.1 pinned to the image the process node runs (and,
// for tests of the assessment, v0.17.0 to the stand-in image that answers upgrade-check), the
// test registry (plain HTTP on loopback) with its account in a docker-config Secret in
// aicr-system, aicr-jobs and aicr-validation. Tests that change the ConfigMap put this back afterwards.
import { ARGOCD, CONFIGURATION, NAMESPACES } from '../shared/api/constants.ts';
import { UPGRADE_CHECK_STAND_IN_IMAGE, UPGRADE_CHECK_STAND_IN_VERSION } from './imageNames.ts';
import { testEnv } from './env.ts';
import { configurationData } from './configurationData.ts';
import { kubectlApply } from './kubectlApply.ts';

export const TEST_AICR_VERSION = 'v0.11.1';
export const TEST_AICR_IMAGE = 'ghcr.io/nvidia/aicr:v0.11.1';
export const REGISTRY_SECRET = 'aicr-registry-auth';
/**
 * A version with upgrade-check, pinned to the stand-in (test/env/node/upgradeCheck.ts); everything
 * else is the real v0.11.1.
 */
export const UPGRADE_CHECK_AICR_VERSION = UPGRADE_CHECK_STAND_IN_VERSION;

export function testConfiguration(): Record<string, unknown> {
  return {
    aicr: {
      versions: { [TEST_AICR_VERSION]: TEST_AICR_IMAGE, [UPGRADE_CHECK_AICR_VERSION]: UPGRADE_CHECK_STAND_IN_IMAGE },
      jobs: { nodeSelector: {}, tolerations: [] },
      validatorImages: {},
      digests: 'Optional',
    },
    registry: {
      repository: `${testEnv().TESTENV_REGISTRY}/aicr`,
      plainHTTP: true,
      auth: { mode: 'static', staticSecretRef: REGISTRY_SECRET },
    },
  };
}

/** A docker config holding the test registry's account, for pulls and pushes. */
export function dockerConfig(): string {
  const env = testEnv();
  const auth = Buffer.from(`${env.TESTENV_REGISTRY_USER}:${env.TESTENV_REGISTRY_PASSWORD}`).toString('base64');
  // The proxy in front of the registry is another host to a docker client; it holds the same account.
  return JSON.stringify({ auths: { [env.TESTENV_REGISTRY]: { auth }, [env.TESTENV_REGISTRY_PROXY]: { auth } } });
}

/** Applies the configuration ConfigMap as given: a document, or raw text for tests of bad input. */
export async function applyConfiguration(
  config: Record<string, unknown> | string = testConfiguration(),
): Promise<void> {
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace },
    data: configurationData(config),
  });
}

/** The docker-config Secret the configuration names, where the control plane and its Jobs read it. */
export async function ensureRegistrySecrets(): Promise<void> {
  const secret = (namespace: string): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: REGISTRY_SECRET, namespace },
    stringData: { '.dockerconfigjson': dockerConfig() },
  });
  await kubectlApply(secret(NAMESPACES.system), secret(NAMESPACES.jobs), secret(NAMESPACES.validation));
}

/** Where the rollout tests' own charts live (harness/rolloutStage.ts), beside registry.repository. */
export const ROLLOUT_CHARTS_PREFIX = 'aicr/rollout-charts';

/**
 * Argo CD's credentials for the test registry, as a person writes them in static mode: a
 * credential template for oci://<registry.repository>, the prefix of every chart source the
 * Applications name (SEC-9), which covers the rollout tests' own charts under it too. Plain HTTP,
 * as the test registry speaks.
 */
export async function ensureArgoCdRepoCreds(): Promise<void> {
  await kubectlApply(argoCdCredentialSecret('aicr-registry', `${ARGOCD.ociScheme}${testEnv().TESTENV_REGISTRY}/aicr`));
}

/**
 * An Argo CD credential Secret for the test registry at `url`, plain HTTP: an OCI credential
 * template (`repo-creds`, matched by URL prefix) unless told `repository` (matched exactly, the
 * Helm-over-OCI form a source by version needs).
 */
export function argoCdCredentialSecret(
  name: string,
  url: string,
  type: 'repository' | 'repo-creds' = ARGOCD.repoCredsSecretType,
  password = testEnv().TESTENV_REGISTRY_PASSWORD,
): Record<string, unknown> {
  const oci = url.startsWith(ARGOCD.ociScheme);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NAMESPACES.argocd, labels: { [ARGOCD.secretTypeLabel]: type } },
    stringData: {
      url,
      ...(oci ? { type: ARGOCD.ociCredentialType } : { type: 'helm', enableOCI: 'true' }),
      insecureOCIForceHttp: 'true',
      username: testEnv().TESTENV_REGISTRY_USER,
      password,
    },
  };
}

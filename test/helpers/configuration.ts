// The control plane's configuration on the test cluster, as the chart renders it from
// test/fixtures/chart-values.yaml: AICR v0.11.1 pinned to the image the process node runs (and,
// for tests of the assessment, v0.17.0 to the stand-in image that answers upgrade-check), the
// test registry (plain HTTP on loopback) with its account in a docker-config Secret in
// aicr-system, aicr-jobs and aicr-validation. Tests that change the ConfigMap put this back afterwards.
import { stringify } from 'yaml';
import { ARGOCD, CONFIGURATION, NAMESPACES } from '../../shared/api/constants.ts';
import { UPGRADE_CHECK_STAND_IN_IMAGE, UPGRADE_CHECK_STAND_IN_VERSION } from '../env/node/images.ts';
import { testEnv } from './env.ts';
import { kubectlApply } from './kubectlApply.ts';

export const TEST_AICR_VERSION = 'v0.11.1';
export const TEST_AICR_IMAGE = 'ghcr.io/nvidia/aicr:v0.11.1';
export const REGISTRY_SECRET = 'aicr-registry-auth';
/** A version with upgrade-check, pinned to the stand-in (test/env/node/upgradeCheck.ts); everything else is the real v0.11.1. */
export const UPGRADE_CHECK_AICR_VERSION = UPGRADE_CHECK_STAND_IN_VERSION;

export function testConfiguration(): Record<string, unknown> {
  return {
    aicr: { versions: { [TEST_AICR_VERSION]: TEST_AICR_IMAGE, [UPGRADE_CHECK_AICR_VERSION]: UPGRADE_CHECK_STAND_IN_IMAGE }, jobs: { nodeSelector: {}, tolerations: [] }, validatorImages: {} },
    registry: { repository: `${testEnv().TESTENV_REGISTRY}/aicr`, plainHTTP: true, auth: { mode: 'static', staticSecretRef: REGISTRY_SECRET } },
  };
}

function dockerConfig(): string {
  const env = testEnv();
  const auth = Buffer.from(`${env.TESTENV_REGISTRY_USER}:${env.TESTENV_REGISTRY_PASSWORD}`).toString('base64');
  // The proxy in front of the registry is another host to a docker client; it holds the same account.
  return JSON.stringify({ auths: { [env.TESTENV_REGISTRY]: { auth }, [env.TESTENV_REGISTRY_PROXY]: { auth } } });
}

/** Applies the configuration ConfigMap as given: a document, or raw text for tests of bad input. */
export async function applyConfiguration(config: Record<string, unknown> | string = testConfiguration()): Promise<void> {
  const text = typeof config === 'string' ? config : stringify(config);
  await kubectlApply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CONFIGURATION.name, namespace: CONFIGURATION.namespace }, data: { [CONFIGURATION.key]: text } });
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


/**
 * Argo CD's repository credentials for the test registry, as a person writes them in static
 * mode: a repo-creds Secret whose URL prefix covers registry.repository, for Argo CD (here its
 * stand-in) to fetch the plan's charts with. Plain HTTP, as the test registry speaks.
 */
export async function ensureArgoCdRepoCreds(): Promise<void> {
  const env = testEnv();
  await kubectlApply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'aicr-registry', namespace: NAMESPACES.argocd, labels: { [ARGOCD.secretTypeLabel]: ARGOCD.repoCredsType } },
    stringData: { url: `${env.TESTENV_REGISTRY}/aicr`, type: 'helm', enableOCI: 'true', insecureOCIForceHttp: 'true', username: env.TESTENV_REGISTRY_USER, password: env.TESTENV_REGISTRY_PASSWORD },
  });
}

// Access to the real services that test/env/up.sh started. A missing service is an error,
// never a skip: a suite that silently skips proves nothing.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { readEnvFile } from './envFile.ts';

const ENV_FILE = fileURLToPath(new URL('../test/env/.state/env', import.meta.url));
const REQUIRED = [
  'TESTENV_STATE',
  'KUBECONFIG',
  'TESTENV_BIN',
  'TESTENV_VENV',
  'TESTENV_ETCD_URL',
  'TESTENV_AUDIT_LOG',
  'TESTENV_K8S_VERSION',
  'TESTENV_NOBODY_TOKEN',
  'TESTENV_PRIVATE_REGISTRY',
  'TESTENV_REGISTRY_USER',
  'TESTENV_REGISTRY_PASSWORD',
  'TESTENV_REGISTRY',
  'TESTENV_REGISTRY_PROXY',
  'TESTENV_REGISTRY_BIN',
  'TESTENV_CHART_REPO',
  'AWS_ENDPOINT_URL',
] as const;
type Key = (typeof REQUIRED)[number];
export type TestEnv = Readonly<Record<Key, string>>;

/** The default environment's variables, without those that refer to others (PATH). */
function stateFileVars(): Record<string, string> {
  if (!existsSync(ENV_FILE)) return {};
  return Object.fromEntries(Object.entries(readEnvFile(ENV_FILE)).filter(([, v]) => !v.includes('$')));
}

let cached: TestEnv | undefined;

// A single test file run by hand still reaches moto: SDK clients built by the code under test
// read AWS_* from the process environment, as they do in Lambda.
for (const [k, v] of Object.entries(stateFileVars())) {
  if (process.env[k] === undefined && (k.startsWith('AWS_') || k.startsWith('TESTENV_') || k === 'KUBECONFIG'))
    process.env[k] = v;
}

/** The running test environment; throws with the fix when it is not up. */
export function testEnv(): TestEnv {
  if (cached) return cached;
  const fromFile = stateFileVars();
  const out: Partial<Record<Key, string>> = {};
  const missing: string[] = [];
  for (const key of REQUIRED) {
    const value = process.env[key] ?? fromFile[key];
    if (value) out[key] = value;
    else missing.push(key);
  }
  if (missing.length > 0) {
    throw new Error(
      `test environment is not running (missing ${missing.join(', ')}): run "npm test", ` +
        'or "bash test/env/bootstrap.sh && bash test/env/up.sh" before running one file',
    );
  }
  cached = out as TestEnv;
  return cached;
}

/** A KubeConfig for the admin user of the test API server. */
export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(testEnv().KUBECONFIG);
  return kc;
}

/** A KubeConfig for a user with no RBAC rights at all. */
export function nobodyKubeConfig(): KubeConfig {
  const admin = adminKubeConfig();
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('admin kubeconfig has no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'aicr-test-nobody', token: testEnv().TESTENV_NOBODY_TOKEN }],
    contexts: [{ name: 'nobody', cluster: cluster.name, user: 'aicr-test-nobody' }],
    currentContext: 'nobody',
  });
  return kc;
}

/** AWS SDK client options pointing at the moto server. */
export function awsClientConfig(): {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  return {
    endpoint: testEnv().AWS_ENDPOINT_URL,
    region: process.env['AWS_REGION'] ?? 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  };
}

/** Clears all moto state, so each test file starts from nothing. */
export async function resetMoto(): Promise<void> {
  const res = await fetch(`${testEnv().AWS_ENDPOINT_URL}/moto-api/reset`, { method: 'POST' });
  if (!res.ok) throw new Error(`moto reset failed: HTTP ${res.status}`);
}

/** A name no other test has used, so tests never wait for one another's namespaces to finish deleting. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

/** The control plane's own identity in the test cluster (user aicr-control-plane). */
export const CONTROL_PLANE_USER = 'aicr-control-plane';

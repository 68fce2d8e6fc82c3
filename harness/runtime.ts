// Helpers for tests that work on the one ClusterRuntime, `cluster`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { API_GROUP, API_VERSION, GROUP_VERSION, KINDS, RUNTIME_NAME } from '../shared/api/constants.ts';
import type { RuntimeObject } from '../shared/kube/kinds.ts';
import type { Condition } from '../shared/api/condition.ts';
import { ensureChart } from './chart.ts';
import { ensureRegistrySecrets } from './configuration.ts';
import { adminKubeConfig, testEnv } from './env.ts';

const run = promisify(execFile);
const RUNTIME = { group: API_GROUP, version: API_VERSION, plural: KINDS.clusterRuntime.plural } as const;

export async function kubectl(...args: string[]): Promise<string> {
  // A whole suite's Events or objects as JSON outgrow the 1 MB default.
  const { stdout } = await run('kubectl', ['--kubeconfig', testEnv().KUBECONFIG, ...args], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/**
 * Installs the control plane's chart, so its CRDs are served, its namespaces exist, each step
 * can run as its own identity and the configuration is there; skipped when the release is
 * already what the chart and its values make (harness/chart.ts).
 */
export async function ensureCrds(): Promise<void> {
  await ensureChart();
  await ensureRegistrySecrets();
}

export function runtimeManifest(spec: Record<string, unknown>, name = RUNTIME_NAME): Record<string, unknown> {
  return { apiVersion: GROUP_VERSION, kind: KINDS.clusterRuntime.kind, metadata: { name }, spec };
}

export async function createRuntime(
  spec: Record<string, unknown>,
  kc: KubeConfig = adminKubeConfig(),
): Promise<RuntimeObject> {
  const co = kc.makeApiClient(CustomObjectsApi);
  return (await co.createClusterCustomObject({ ...RUNTIME, body: runtimeManifest(spec) })) as RuntimeObject;
}

export async function getRuntime(kc: KubeConfig = adminKubeConfig()): Promise<RuntimeObject | undefined> {
  const co = kc.makeApiClient(CustomObjectsApi);
  try {
    return (await co.getClusterCustomObject({ ...RUNTIME, name: RUNTIME_NAME })) as RuntimeObject;
  } catch (err) {
    if ((err as { code?: number }).code === 404) return undefined;
    throw err;
  }
}

/**
 * Deletes the runtime without its deletionPolicy (the finalizer escape hatch) and waits until it
 * is gone. The finalizer is cleared after the delete: once deletion has begun, the control plane
 * cannot put it back.
 */
export async function deleteRuntime(): Promise<void> {
  const name = RUNTIME_NAME;
  if (!(await kubectl('get', 'clusterruntime', name, '--ignore-not-found', '-o', 'name'))) return;
  await kubectl('delete', 'clusterruntime', name, '--ignore-not-found', '--wait=false');
  await kubectl('patch', 'clusterruntime', name, '--type', 'merge', '-p', '{"metadata":{"finalizers":null}}').catch(
    () => '',
  );
  await kubectl('wait', '--for=delete', `clusterruntime/${name}`, '--timeout=60s').catch(() => '');
}

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits for Stalled to read `status` (and `reason`, when given). The summary is a second apply after
 * the step's own condition, so a test that has just seen that condition must wait for it too.
 */
export function stalledBecomes(status: 'True' | 'False', reason?: string, timeoutMs = 20_000): Promise<Condition> {
  return waitFor(
    `Stalled=${status}${reason ? ` for ${reason}` : ''}`,
    async () => {
      const s = condition(await getRuntime(), 'Stalled');
      return s?.status === status && (reason === undefined || s.reason === reason) ? s : undefined;
    },
    timeoutMs,
  );
}

export function condition(obj: RuntimeObject | undefined, type: string): Condition | undefined {
  return obj?.status?.conditions?.find((c) => c.type === type);
}

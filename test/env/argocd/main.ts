// A STAND-IN for Argo CD's application controller, for the test cluster and local mode only:
// Argo CD's own controllers cannot run here. It runs as the Pod of the StatefulSet in
// manifest.yaml (or by hand with KUBECONFIG set) and speaks only through the Kubernetes API,
// as its ServiceAccount: it checks each Application's charts in the registry, writes the status
// Argo CD would write, and applies nothing. docs/adr/0009-test-cluster.md lists what it does
// not do.
import { KubeConfig } from '@kubernetes/client-node';
import { Controller } from './controller.ts';
import { appsApi } from './kube.ts';

function millis(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of milliseconds, not ${raw}`);
  return value;
}

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  if (process.env['KUBECONFIG']) kc.loadFromFile(process.env['KUBECONFIG']);
  else kc.loadFromCluster();
  return kc;
}

async function main(): Promise<void> {
  const log = (msg: string): void => console.log(`${new Date().toISOString()} [argocd-standin] ${msg}`);
  log('Argo CD application controller stand-in (test only): writes Application status, applies nothing');
  const controller = new Controller({
    api: appsApi(kubeConfig()),
    knobsDir: process.env['ARGOCD_STANDIN_KNOBS_DIR'] || undefined,
    resyncMs: millis('ARGOCD_STANDIN_RESYNC_MS', 3000),
    reconcileMs: millis('ARGOCD_STANDIN_RECONCILE_MS', 60_000),
    syncDelayMs: millis('ARGOCD_STANDIN_SYNC_DELAY_MS', 300),
    deleteDelayMs: millis('ARGOCD_STANDIN_DELETE_DELAY_MS', 300),
    log,
  });
  const stop = (): void => {
    log('stopping');
    controller.stop();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await controller.start();
  log('watching Applications in namespace argocd');
}

main().catch((err: unknown) => {
  console.error(`[argocd-standin] ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});

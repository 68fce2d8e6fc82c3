// The process node: a stand-in for the kubelet of every simulated Node in the test cluster.
// It runs Pods bound to its Nodes as local processes (see podRunner.ts) and, with
// --default-nodes, first registers the default local cluster's node groups.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ProcessNodeAgent } from './agent.ts';
import { defaultImageTable } from './images.ts';
import { DEFAULT_NODE_GROUPS } from './nodeShapes.ts';
import { registerNodeGroup } from './registerNodes.ts';
import { startLogServer } from './logServer.ts';
import { knobPaths } from '../knobFiles.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`process node: ${name} is not set (up.sh sets it)`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'default-nodes': { type: 'boolean' } } });
  const stateDir = required('TESTENV_STATE');
  const kc = new KubeConfig();
  kc.loadFromFile(required('KUBECONFIG'));
  const core = kc.makeApiClient(CoreV1Api);
  const apiPort = new URL(kc.getCurrentCluster()?.server ?? 'https://127.0.0.1:443').port;
  const log = (msg: string): void => console.error(`[process-node] ${msg}`);
  await mkdir(join(stateDir, 'procs'), { recursive: true });
  const knobs = knobPaths(stateDir);
  const argoCd = {
    argocdDir: required('TESTENV_ARGOCD_DIR'),
    helmDir: required('TESTENV_HELM_BIN_DIR'),
    redisDir: required('TESTENV_REDIS_DIR'),
  };
  const images = defaultImageTable(required('TESTENV_AICR_BIN_DIR'), required('TESTENV_BIN'), knobs.upgradeCheck, {
    chainsawBinDir: required('TESTENV_CHAINSAW_BIN_DIR'),
    argoCd,
  });
  const htpasswd = required('TESTENV_REGISTRY_HTPASSWD');
  const agent = new ProcessNodeAgent(kc, core, { core, images, stateDir, apiPort, htpasswd, knobs, log });
  const facts = { k8sVersion: required('TESTENV_K8S_VERSION'), kubeletPort: Number(required('TESTENV_KUBELET_PORT')) };
  const names: string[] = [];
  if (values['default-nodes']) {
    for (const group of DEFAULT_NODE_GROUPS) names.push(...(await registerNodeGroup(core, group, facts)));
  }
  await agent.start();
  await startLogServer({ port: facts.kubeletPort, pki: join(stateDir, 'pki'), stateDir, source: agent });
  log(`serving simulated Nodes ${names.join(', ')}: their Pods run as local processes, GPUs are not real`);
  await writeFile(join(stateDir, 'process-node.ready'), '');
  const shutdown = (): void => {
    void agent.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  console.error(`[process-node] ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
});

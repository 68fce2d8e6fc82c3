// `npm start` runs this once the local API server is up. It reaches a cluster only through
// the kubeconfig file and context it is given, never the user's current context. The context's
// user must be allowed to impersonate: the forwarder and each step act as their own identity,
// as their IAM roles map to on EKS, so the chart's RBAC and its plan admission policy hold here
// exactly as there (a plan written with the context's own rights would be refused).
import { parseArgs } from 'node:util';
import { kubeAsIdentity } from '../kube/fromKubeconfig.ts';
import type { KubePort } from '../kube/port.ts';
import { createLogger } from '../observability/log.ts';
import { startLocalControlPlane } from './controlPlane.ts';

/** One port per step identity, made on first use: the dispatcher asks for a step's port on every message. */
function stepIdentities(file: string, context: string): (step: string) => KubePort {
  const ports = new Map<string, KubePort>();
  return (step) => {
    const port = ports.get(step) ?? kubeAsIdentity(file, context, step);
    ports.set(step, port);
    return port;
  };
}

function main(): void {
  const { values } = parseArgs({
    options: { kubeconfig: { type: 'string' }, context: { type: 'string' } },
  });
  if (!values.kubeconfig || !values.context) {
    console.error(
      'usage: main.ts --kubeconfig <file> --context <name>  (both are required, so a real cluster is never ' +
        'reached by accident)',
    );
    process.exit(2);
  }
  const log = createLogger();
  const kube = kubeAsIdentity(values.kubeconfig, values.context, 'forwarder');
  const cp = startLocalControlPlane({ kube, kubeFor: stepIdentities(values.kubeconfig, values.context), log });
  log.info('local control plane running', { context: values.context });
  const shutdown = (): void => {
    log.info('stopping');
    cp.stop();
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  cp.running.then(
    () => process.exit(0),
    () => process.exit(1),
  );
}

main();

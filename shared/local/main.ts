// `npm start` runs this once the local API server is up. It reaches a cluster only through
// the kubeconfig file and context it is given, never the user's current context.
import { parseArgs } from 'node:util';
import { kubeFromKubeconfig } from '../kube/fromKubeconfig.ts';
import { createLogger } from '../observability/log.ts';
import { startLocalControlPlane } from './controlPlane.ts';

function main(): void {
  const { values } = parseArgs({
    options: { kubeconfig: { type: 'string' }, context: { type: 'string' } },
  });
  if (!values.kubeconfig || !values.context) {
    console.error('usage: main.ts --kubeconfig <file> --context <name>  (both are required, so a real cluster is never reached by accident)');
    process.exit(2);
  }
  const log = createLogger();
  const kube = kubeFromKubeconfig(values.kubeconfig, values.context);
  const cp = startLocalControlPlane({ kube, log });
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

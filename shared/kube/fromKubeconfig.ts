import { KubeClient } from './client.ts';
import { connectionFromKubeconfig } from './kubeconfig.ts';
import type { KubePort } from './port.ts';
import { RestClient } from './rest.ts';

/** The port for a kubeconfig file and a context the caller names. */
export function kubeFromKubeconfig(file: string, context: string): KubePort {
  return new KubeClient(new RestClient(connectionFromKubeconfig(file, context)));
}

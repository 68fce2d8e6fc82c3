import { IDENTITY_GROUP, IDENTITY_USER } from '../api/constants.ts';
import { KubeClient } from './client.ts';
import { connectionFromKubeconfig } from './kubeconfig.ts';
import type { KubePort } from './port.ts';
import { RestClient } from './rest.ts';

/** The port for a kubeconfig file and a context the caller names. */
export function kubeFromKubeconfig(file: string, context: string): KubePort {
  return new KubeClient(new RestClient(connectionFromKubeconfig(file, context)));
}

/**
 * The port acting as one function's own identity (`forwarder`, or a step's name), through
 * impersonation by a context allowed to impersonate: what that function holds on EKS, where
 * its role maps to the same group.
 */
export function kubeAsIdentity(file: string, context: string, identity: string): KubePort {
  const base = connectionFromKubeconfig(file, context);
  const isForwarder = identity === 'forwarder';
  const user = isForwarder ? IDENTITY_USER.forwarder : IDENTITY_USER.step(identity);
  const group = isForwarder ? IDENTITY_GROUP.forwarder : IDENTITY_GROUP.step(identity);
  return new KubeClient(
    new RestClient({
      ...base,
      name: user,
      identity: () => Promise.resolve(user),
      impersonate: { user, groups: [group, 'system:authenticated'] },
    }),
  );
}

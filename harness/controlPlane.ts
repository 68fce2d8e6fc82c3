import { kubeAsIdentity, kubeFromKubeconfig } from '../shared/kube/fromKubeconfig.ts';
import type { KubePort } from '../shared/kube/port.ts';
import { type LocalControlPlane, type LocalOptions, startLocalControlPlane } from '../shared/local/controlPlane.ts';
import { CONTROL_PLANE_USER, testEnv } from './env.ts';
import { captureLogger } from './logs.ts';

/** A KubePort that acts as the control plane's own user, so its requests stand apart in the audit log. */
export function controlPlaneKube(kubeconfig = testEnv().KUBECONFIG): KubePort {
  return kubeFromKubeconfig(kubeconfig, CONTROL_PLANE_USER);
}

/** A step's own identity (group aicr:step:<name>), as its Lambda role maps to on EKS. */
export function stepKube(step: string, kubeconfig = testEnv().KUBECONFIG): KubePort {
  return kubeAsIdentity(kubeconfig, CONTROL_PLANE_USER, step);
}

/** The forwarder's own identity (group aicr:forwarder). */
export function forwarderKube(kubeconfig = testEnv().KUBECONFIG): KubePort {
  return kubeAsIdentity(kubeconfig, CONTROL_PLANE_USER, 'forwarder');
}

/** Local mode, as `npm start` runs it, with logs captured for the test to read. */
export function startCapturedControlPlane(
  overrides: Partial<LocalOptions> = {},
): LocalControlPlane & ReturnType<typeof captureLogger> {
  const captured = captureLogger();
  const cp = startLocalControlPlane({
    kube: forwarderKube(),
    // A test that brings its own access (another API server, say) gives it to the steps too.
    kubeFor: overrides.kube ? () => overrides.kube as KubePort : (step) => stepKube(step),
    log: captured.log,
    queue: { redeliveryDelayMs: 50 },
    watchTimeoutSeconds: 30,
    stallCountEveryMs: 500,
    ...overrides,
  });
  return { ...cp, ...captured };
}

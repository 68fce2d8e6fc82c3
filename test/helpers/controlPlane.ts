import { kubeFromKubeconfig } from '../../shared/kube/fromKubeconfig.ts';
import type { KubePort } from '../../shared/kube/port.ts';
import { type LocalControlPlane, type LocalOptions, startLocalControlPlane } from '../../shared/local/controlPlane.ts';
import { CONTROL_PLANE_USER, testEnv } from './env.ts';
import { captureLogger } from './logs.ts';

/** A KubePort that acts as the control plane's own user, so its requests stand apart in the audit log. */
export function controlPlaneKube(kubeconfig = testEnv().KUBECONFIG): KubePort {
  return kubeFromKubeconfig(kubeconfig, CONTROL_PLANE_USER);
}

/** Local mode, as `npm start` runs it, with logs captured for the test to read. */
export function startCapturedControlPlane(overrides: Partial<LocalOptions> = {}): LocalControlPlane & ReturnType<typeof captureLogger> {
  const captured = captureLogger();
  const cp = startLocalControlPlane({
    kube: controlPlaneKube(),
    log: captured.log,
    queue: { redeliveryDelayMs: 50 },
    watchTimeoutSeconds: 30,
    ...overrides,
  });
  return { ...cp, ...captured };
}

// `kubectl aicr refresh-credentials`: has the control plane mint a new ECR token for Argo CD now
// (REG-5) instead of at its next 6-hourly refresh. It records the request as a new value of an
// annotation on the runtime, which the forwarder turns into a message for the token-refresh
// step, then waits until Argo CD's registry Secret says it answered that value. Nothing is
// restarted: the control plane has no long-running process to restart.
import { ANNOTATION, ARGOCD_REGISTRY_SECRET, RUNTIME_NAME } from '../shared/api/constants.ts';
import { Refused } from './approve.ts';
import { type Kubectl, getJson, runKubectl } from './kubectl.ts';
import { waitUntil } from './request.ts';

export interface Refreshed {
  readonly request: string;
  readonly expiresAt: string;
}

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;

type Annotated = { metadata?: { annotations?: Record<string, string> } };

/** Asks for a refresh and waits until the token-refresh step has written the Secret for it. */
export async function refreshCredentials(k: Kubectl, timeoutMs: number, now: Date = new Date()): Promise<Refreshed> {
  if (!(await getJson(k, 'clusterruntime', RUNTIME_NAME)))
    throw new Refused(
      `there is no ClusterRuntime ${RUNTIME_NAME}; the control plane refreshes Argo CD's registry credentials ` +
        'only for a runtime',
    );
  const request = now.toISOString();
  await runKubectl(k, [
    'annotate',
    'clusterruntime',
    RUNTIME_NAME,
    `${ANNOTATION.refreshCredentials}=${request}`,
    '--overwrite',
  ]);
  const awaited =
    `refresh ${request} requested, but the control plane has not written Secret ${SECRET} for it (in ` +
    'registry.auth.mode static, or with the EKS Argo CD capability, it writes none; otherwise the token-refresh ' +
    "step's log says why)";
  return waitUntil(timeoutMs, awaited, async () => {
    const notes = (
      (await getJson(k, 'secret', ARGOCD_REGISTRY_SECRET.name, ARGOCD_REGISTRY_SECRET.namespace)) as
        Annotated | undefined
    )?.metadata?.annotations;
    return notes?.[ANNOTATION.refreshAnswered] === request
      ? { request, expiresAt: notes[ANNOTATION.tokenExpiresAt] ?? '' }
      : undefined;
  });
}

export function refreshedText(r: Refreshed): string {
  return `Argo CD's registry credentials (Secret ${SECRET}) refreshed: the new token expires at ${r.expiresAt}`;
}

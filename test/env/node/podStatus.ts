// Pod status as a kubelet writes it, computed from what the process node knows about each
// container. Pure, so the wording and the phase rules can be read (and tested) in one place.
import { fullReference } from './images.ts';
import type { V1ContainerState, V1ContainerStatus, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

export interface ContainerView {
  readonly name: string;
  readonly image: string;
  readonly imageID: string;
  readonly containerID: string;
  readonly state: V1ContainerState;
  readonly restartCount: number;
}

export interface PodView {
  readonly init: readonly ContainerView[];
  readonly main: readonly ContainerView[];
  readonly startTime: Date;
  /** Volumes and the token are in place (the "sandbox" is ready). */
  readonly prepared: boolean;
  /** Set when the node itself ended the Pod (deadline, eviction). */
  readonly failure?: { readonly reason: string; readonly message: string };
}

export function waiting(reason: string, message?: string): V1ContainerState {
  return { waiting: message === undefined ? { reason } : { reason, message } };
}

function toStatus(c: ContainerView): V1ContainerStatus {
  const running = c.state.running !== undefined;
  return {
    name: c.name,
    image: c.image,
    imageID: c.imageID,
    ...(c.containerID ? { containerID: c.containerID } : {}),
    state: c.state,
    ready: running,
    started: running,
    restartCount: c.restartCount,
  };
}

const succeeded = (c: ContainerView): boolean => c.state.terminated?.exitCode === 0;
const terminated = (c: ContainerView): boolean => c.state.terminated !== undefined;

export function phaseOf(view: PodView, restartPolicy: string): string {
  if (view.failure) return 'Failed';
  if (view.init.some((c) => terminated(c) && !succeeded(c)) && restartPolicy === 'Never') return 'Failed';
  if (view.main.length > 0 && view.main.every(terminated) && restartPolicy !== 'Always') {
    if (view.main.every(succeeded)) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
  }
  return view.main.some((c) => c.state.running) ? 'Running' : 'Pending';
}

interface Cond {
  readonly type: string;
  readonly ok: boolean;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
}

function condition(c: Cond, now: Date): V1PodCondition {
  return {
    type: c.type,
    status: c.ok ? 'True' : 'False',
    lastTransitionTime: now,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
  };
}

function readiness(view: PodView, done: boolean): { reason?: string; message?: string } {
  if (done) return { reason: 'PodCompleted' };
  const unready = view.main.filter((c) => !c.state.running).map((c) => c.name);
  return unready.length > 0
    ? { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` }
    : {};
}

function initialized(view: PodView, done: boolean): Cond {
  const pending = view.init.filter((c) => !succeeded(c)).map((c) => c.name);
  if (pending.length > 0)
    return {
      type: 'Initialized',
      ok: false,
      reason: 'ContainersNotInitialized',
      message: `containers with incomplete status: [${pending.join(' ')}]`,
    };
  return { type: 'Initialized', ok: true, reason: done ? 'PodCompleted' : undefined };
}

function conditions(pod: V1Pod, view: PodView, phase: string, now: Date): V1PodCondition[] {
  const done = phase === 'Succeeded' || phase === 'Failed';
  const ready = readiness(view, done);
  const previous = new Map((pod.status?.conditions ?? []).map((c) => [c.type, c]));
  const keepTime = (c: V1PodCondition): V1PodCondition => {
    const before = previous.get(c.type);
    return before?.status === c.status && before.lastTransitionTime
      ? { ...c, lastTransitionTime: before.lastTransitionTime }
      : c;
  };
  const scheduled = previous.get('PodScheduled');
  return [
    condition({ type: 'PodReadyToStartContainers', ok: view.prepared && !done }, now),
    condition(initialized(view, done), now),
    condition({ type: 'Ready', ok: !ready.reason, ...ready }, now),
    condition({ type: 'ContainersReady', ok: !ready.reason, ...ready }, now),
    ...(scheduled ? [scheduled] : []),
  ].map(keepTime);
}

export function podStatus(pod: V1Pod, view: PodView, now: Date): V1PodStatus {
  const phase = phaseOf(view, pod.spec?.restartPolicy ?? 'Always');
  return {
    ...pod.status,
    phase,
    conditions: conditions(pod, view, phase, now),
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP: '127.0.0.1',
    podIPs: [{ ip: '127.0.0.1' }],
    startTime: view.startTime,
    ...(view.init.length > 0 ? { initContainerStatuses: view.init.map(toStatus) } : {}),
    containerStatuses: view.main.map(toStatus),
    ...(view.failure ? { reason: view.failure.reason, message: view.failure.message } : {}),
  };
}

/** Why a pull failed: no such image, no credentials given, or credentials the registry refused. */
export type PullCause = 'not-found' | 'anonymous' | 'refused';

function pullError(image: string, cause: PullCause): { code: string; text: string } {
  const ref = fullReference(image);
  const resolve = `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}"`;
  if (cause === 'not-found') return { code: 'NotFound', text: `${resolve}: ${ref}: not found` };
  if (cause === 'anonymous')
    return {
      code: 'Unknown',
      text: `${resolve}: pull access denied, repository does not exist or may require authorization: authorization failed: no basic auth credentials`,
    };
  const [host, ...rest] = ref.split('/');
  const path = rest.join('/').replace(/:([^:/@]+)$/, '/manifests/$1');
  return {
    code: 'Unknown',
    text: `${resolve}: unexpected status from HEAD request to https://${host}/v2/${path}: 401 Unauthorized`,
  };
}

/** The kubelet's words for an image it cannot pull. */
export function pullFailure(image: string, backOff: boolean, cause: PullCause = 'not-found'): V1ContainerState {
  const { code, text } = pullError(image, cause);
  return backOff
    ? waiting('ImagePullBackOff', `Back-off pulling image "${image}": ErrImagePull: ${text}`)
    : waiting('ErrImagePull', `rpc error: code = ${code} desc = ${text}`);
}

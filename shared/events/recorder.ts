// Kubernetes Events on the runtime, aggregated: an Event's name is derived from what it says, so
// the same Event again raises its count instead of adding an object, and a retry loop never
// floods `kubectl describe`. Events about a cluster-scoped object live in `default`, as the
// API server requires.
import { createHash } from 'node:crypto';
import { GROUP_VERSION, KINDS, NAMESPACES } from '../api/constants.ts';
import { ConflictError } from '../errors.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';

export const EVENT_SOURCE = 'aicr-control-plane';
export const EVENT_REASON = {
  runFailed: 'AICRRunFailed',
  rolloutCreated: 'RolloutCreated',
  rolloutExpired: 'RolloutExpired',
  rolloutSuperseded: 'RolloutSuperseded',
  rolloutSucceeded: 'RolloutSucceeded',
  rolloutFailed: 'RolloutFailed',
  rolloutRevoked: 'RolloutRevoked',
  approvalAccepted: 'ApprovalAccepted',
  approvalRefused: 'ApprovalRefused',
  runtimeOrphaned: 'RuntimeOrphaned',
  runtimeRemoved: 'RuntimeRemoved',
} as const;

export interface EventNote {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

const MESSAGE_LIMIT = 1024;

function eventName(subject: { readonly name: string; readonly uid: string }, note: EventNote): string {
  const hash = createHash('sha256')
    .update(`${subject.uid}\n${note.type}\n${note.reason}\n${note.message}`)
    .digest('hex')
    .slice(0, 16);
  return `${subject.name}.${hash}`;
}

interface CountedEvent {
  readonly metadata: { readonly resourceVersion: string };
  readonly count?: number;
}

/** Records the note on the runtime, or counts it once more if the same note is already there. */
export interface EventTarget {
  readonly kube: KubePort;
  readonly runtime: RuntimeObject;
  /** The step that reports it. */
  readonly reporter: string;
  readonly now: Date;
  /** The object the Event is about when it is not the runtime (a rollout); the runtime by default. */
  readonly about?: { readonly kind: string; readonly name: string; readonly uid: string };
}

export async function recordEvent(
  { kube, runtime, reporter, now, about }: EventTarget,
  note: EventNote,
): Promise<void> {
  const subject = about ?? { kind: KINDS.clusterRuntime.kind, name: runtime.metadata.name, uid: runtime.metadata.uid };
  const name = eventName(subject, note);
  const at = now.toISOString();
  const message = note.message.length > MESSAGE_LIMIT ? `${note.message.slice(0, MESSAGE_LIMIT - 1)}…` : note.message;
  try {
    await kube.create(KIND.event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: NAMESPACES.events },
      involvedObject: { apiVersion: GROUP_VERSION, ...subject },
      type: note.type,
      reason: note.reason,
      message,
      count: 1,
      firstTimestamp: at,
      lastTimestamp: at,
      source: { component: EVENT_SOURCE },
      reportingComponent: EVENT_SOURCE,
      reportingInstance: reporter,
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    const existing = (await kube.get(KIND.event, name, NAMESPACES.events)) as CountedEvent | undefined;
    if (!existing) return;
    await kube.patch(KIND.event, name, NAMESPACES.events, {
      metadata: { resourceVersion: existing.metadata.resourceVersion },
      count: (existing.count ?? 1) + 1,
      lastTimestamp: at,
    });
  }
}

// One error taxonomy for every step. The class of an error, never its message text, decides
// what happens next (see classify.ts). Messages are lowercase, actionable and hold no secret.

/** Safe to log: every field is chosen by the control plane, never copied from input or a server reply. */
export abstract class ControlPlaneError extends Error {
  abstract readonly kind: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Something outside us failed briefly (API server 5xx, 429, network, a write conflict); retry now. */
export class TransientError extends ControlPlaneError {
  readonly kind = 'transient';
}

/** Not ready yet; try again after a delay. */
export class RequeueAfterError extends ControlPlaneError {
  readonly kind = 'requeue-after';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/**
 * A person must act. `retrying` marks the stalled states that still clear by themselves once
 * the cause is fixed outside the runtime (missing credentials, say), so work keeps retrying.
 */
export class StalledError extends ControlPlaneError {
  readonly kind = 'stalled';
  constructor(
    readonly reason: string,
    message: string,
    readonly retrying: boolean,
  ) {
    super(message);
  }
}

/** A queue message that does not parse; it can only fail until it is dead-lettered. */
export class MalformedMessageError extends ControlPlaneError {
  readonly kind = 'malformed-message';
  constructor(readonly field: string, detail: string) {
    super(`malformed message: ${field}: ${detail}`);
  }
}

/** The Kubernetes API refused a request for good (4xx other than conflicts and throttling). */
export class KubeRequestError extends ControlPlaneError {
  readonly kind = 'kube-request';
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly fields: readonly string[],
    readonly identity?: string,
  ) {
    const on = fields.length > 0 ? ` on ${fields.join(', ')}` : '';
    const who = identity ? ` for ${identity}` : '';
    super(`kubernetes api refused the request${who}: http ${status} ${reason}${on}`);
  }
}

/** A write lost an optimistic-concurrency race; the step re-reads and decides again. */
export class ConflictError extends TransientError {}

/** The resourceVersion a watch resumed from has been compacted away; relist. */
export class GoneError extends TransientError {}

// One error taxonomy for every step. The class of an error, never its message text, decides
// what happens next (see classify.ts). Messages are lowercase, actionable and hold no secret.
import { REASON_CLASS, REASONS, type Reason } from './api/reasons.ts';

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

/**
 * A person must act. `retrying` marks the stalled states that still clear by themselves once
 * the cause is fixed outside the runtime (missing credentials, say), so work keeps retrying.
 */
export class StalledError extends ControlPlaneError {
  readonly reason: Reason;
  readonly kind = 'stalled';
  constructor(reason: Reason, message: string) {
    super(message);
    this.reason = reason;
  }

  /** Whether work keeps retrying by itself: the reason's class in the reasons table says. */
  get retrying(): boolean {
    return REASONS[this.reason].class === REASON_CLASS.stalledRetrying;
  }
}

/**
 * The API server refused the status this step wrote (HTTP 422). The control plane built that
 * status, so this is its own bug: reported as such, never retried silently forever.
 */
export class StatusWriteRefusedError extends ControlPlaneError {
  readonly fields: readonly string[];
  readonly kind = 'status-write-refused';
  constructor(fields: readonly string[]) {
    const on = fields.length > 0 ? ` on ${fields.join(', ')}` : '';
    super(
      `the api server refused this step's status write (http 422${on}); this is a control plane ` +
        `bug: report it with the control plane's log`,
    );
    this.fields = fields;
  }
}

/** A function received work for a step it does not run: its deployment is wrong, not the message. */
export class StepNotRoutedError extends ControlPlaneError {
  readonly kind = 'step-not-routed';
  constructor(step: string, runs: readonly string[]) {
    super(
      `this function runs steps ${runs.join(', ')} but received a message for step ${step}: ` +
        `check the queue routes in serverless.yml against the step table`,
    );
  }
}

/** A queue message that does not parse; it can only fail until it is dead-lettered. */
export class MalformedMessageError extends ControlPlaneError {
  readonly field: string;
  readonly kind = 'malformed-message';
  constructor(field: string, detail: string) {
    super(`malformed message: ${field}: ${detail}`);
    this.field = field;
  }
}

/** The Kubernetes API refused a request for good (4xx other than conflicts and throttling). */
export class KubeRequestError extends ControlPlaneError {
  readonly status: number;
  readonly reason: string;
  readonly fields: readonly string[];
  readonly identity?: string | undefined;
  readonly kind = 'kube-request';
  constructor(status: number, reason: string, fields: readonly string[], identity?: string) {
    const on = fields.length > 0 ? ` on ${fields.join(', ')}` : '';
    const who = identity ? ` for ${identity}` : '';
    super(`kubernetes api refused the request${who}: http ${status} ${reason}${on}`);
    this.status = status;
    this.reason = reason;
    this.fields = fields;
    this.identity = identity;
  }
}

/** A write lost an optimistic-concurrency race; the step re-reads and decides again. */
export class ConflictError extends TransientError {}

/**
 * The Kubernetes API server could not be reached or did not answer in time. The message names
 * the likely causes, since a private endpoint with a missing security-group rule looks exactly
 * like this; `failure` is the network failure's kind, never text from a peer.
 */
export class KubeUnreachableError extends TransientError {
  readonly server: string;
  readonly failure: string;
  constructor(server: string, failure: string) {
    super(
      `kubernetes api at ${server} unreachable (${failure}); check that the cluster security ` +
        `group allows tcp 443 from the function's security group, ` +
        `that the endpoint's access (public, private) admits the function's network, and that its ` +
        `subnets resolve the endpoint`,
    );
    this.server = server;
    this.failure = failure;
  }
}

/** The invocation's time ran short before a request could finish; the work goes to an immediate retry. */
export class DeadlineError extends TransientError {}

/**
 * The API server asked the client to come back later (HTTP 429): throttling, or a watch cache
 * still initializing, which is what a freshly installed CRD answers to its first list or watch.
 */
export class ThrottledError extends TransientError {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The resourceVersion a watch resumed from has been compacted away; relist. */
export class GoneError extends TransientError {}

/**
 * The OCI registry could not be reached or answered that it is busy (a refused connection, a
 * timeout, HTTP 5xx or 429). A transient error: the framework retries with backoff.
 */
export class RegistryUnavailableError extends TransientError {}

/**
 * The registry refused the control plane's credentials (HTTP 401) or its access to a
 * repository (HTTP 403). Only the status and the repository are kept: never a credential, and
 * never the registry's own wording.
 */
export class RegistryRefusedError extends ControlPlaneError {
  readonly status: number;
  readonly registry: string;
  readonly repository: string;
  readonly kind = 'registry-refused';
  constructor(status: number, registry: string, repository: string) {
    const fix =
      status === 401 ? 'check the registry credentials' : 'grant the credentials pull access to this repository';
    super(`registry ${registry} refused access to ${repository} (http ${status}): ${fix}`);
    this.status = status;
    this.registry = registry;
    this.repository = repository;
  }
}

/**
 * The bundle AICR pushed cannot be read: no such tag or blob, a digest mismatch, a bad archive, or
 * over a size limit.
 */
export class BundleUnreadableError extends ControlPlaneError {
  readonly reference: string;
  readonly problem: string;
  readonly kind = 'bundle-unreadable';
  constructor(reference: string, problem: string) {
    super(`bundle ${reference}: ${problem}`);
    this.reference = reference;
    this.problem = problem;
  }
}

/** The docker config holding the registry credentials is not valid JSON of the expected shape. */
export class RegistryCredentialsInvalidError extends ControlPlaneError {
  readonly kind = 'registry-credentials-invalid';
  constructor(detail: string) {
    super(`the registry credentials are not a valid docker config: ${detail}`);
  }
}

/**
 * An upstream chart the recipe names cannot be copied as it stands: its chart repository has no
 * such chart or version, or what it serves is not that chart. A person must look; retrying
 * does not help. (An unreachable chart repository is a TransientError instead.)
 */
export class ChartSourceError extends ControlPlaneError {
  readonly kind = 'chart-source';
}

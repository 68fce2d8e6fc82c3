// One classifier: the class of a thrown error, never its message text, decides what the queue
// does with the work that raised it.
import {
  ConflictError,
  ControlPlaneError,
  DeadlineError,
  KubeRequestError,
  MalformedMessageError,
  RegistryRefusedError,
  StalledError,
  StatusWriteRefusedError,
  StepNotRoutedError,
  ThrottledError,
  TransientError,
} from './errors.ts';
import type { Reason } from './api/reasons.ts';

export const OUTCOME = {
  retryNow: 'retry-now',
  retryAfter: 'retry-after',
  stalledWaiting: 'stalled-waiting',
  stalledRetrying: 'stalled-retrying',
} as const;

export type Outcome =
  | { readonly kind: typeof OUTCOME.retryNow }
  /** `delayMs` undefined: back off by attempt number. */
  | { readonly kind: typeof OUTCOME.retryAfter; readonly delayMs?: number }
  | { readonly kind: typeof OUTCOME.stalledWaiting; readonly reason: Reason; readonly message: string }
  | { readonly kind: typeof OUTCOME.stalledRetrying; readonly reason: Reason; readonly message: string };

/** HTTP answers that are not a refusal of the request itself: gone, conflict, expired, throttled. */
const NOT_REFUSALS = new Set([404, 409, 410, 429]);

/** The stalls: a person should look. */
function stalled(err: unknown): Outcome | undefined {
  if (err instanceof StalledError) {
    return err.retrying
      ? { kind: OUTCOME.stalledRetrying, reason: err.reason, message: err.message }
      : { kind: OUTCOME.stalledWaiting, reason: err.reason, message: err.message };
  }
  if (err instanceof StatusWriteRefusedError)
    return { kind: OUTCOME.stalledWaiting, reason: 'StatusWriteRefused', message: err.message };
  if (err instanceof KubeRequestError && !NOT_REFUSALS.has(err.status)) {
    return { kind: OUTCOME.stalledRetrying, reason: 'APIRequestRefused', message: err.message };
  }
  return undefined;
}

/** Maps any thrown value to what the queue should do with the work that caused it. */
export function classify(err: unknown): Outcome {
  const stall = stalled(err);
  if (stall) return stall;
  if (err instanceof ThrottledError) return { kind: OUTCOME.retryAfter, delayMs: err.retryAfterMs };
  // Out of time in this invocation: the next one picks the work up at once.
  if (err instanceof DeadlineError) return { kind: OUTCOME.retryAfter, delayMs: 0 };
  // A lost write race re-reads at once; the winner's write usually leaves nothing to do.
  if (err instanceof ConflictError) return { kind: OUTCOME.retryNow };
  // Failing the message is all a malformed or misrouted message can do: it ends dead-lettered.
  if (err instanceof MalformedMessageError || err instanceof StepNotRoutedError) return { kind: OUTCOME.retryNow };
  // TransientError covers the registry's too (RegistryUnavailableError): unreachable, 5xx, 429.
  if (err instanceof TransientError || err instanceof KubeRequestError) return { kind: OUTCOME.retryAfter };
  // Unknown failures are treated as transient but slowed down, so a bug cannot spin a queue.
  return { kind: OUTCOME.retryAfter };
}

/** Fields that describe an error without any text a server or a user supplied. */
export function errorFields(err: unknown): Record<string, string | number> {
  if (err instanceof ControlPlaneError) {
    const out: Record<string, string | number> = { errorKind: err.kind, error: err.message };
    if (err instanceof KubeRequestError || err instanceof RegistryRefusedError) out['httpStatus'] = err.status;
    return out;
  }
  const name = err instanceof Error ? err.name : typeof err;
  return { errorKind: 'unexpected', error: `unexpected ${name}` };
}

import { ControlPlaneError, KubeRequestError, MalformedMessageError, RequeueAfterError, StalledError, TransientError } from './errors.ts';

export const OUTCOME = {
  retryNow: 'retry-now',
  retryAfter: 'retry-after',
  stalledWaiting: 'stalled-waiting',
  stalledRetrying: 'stalled-retrying',
} as const;

export type Outcome =
  | { readonly kind: typeof OUTCOME.retryNow }
  | { readonly kind: typeof OUTCOME.retryAfter; readonly delayMs: number }
  | { readonly kind: typeof OUTCOME.stalledWaiting; readonly reason: string; readonly message: string }
  | { readonly kind: typeof OUTCOME.stalledRetrying; readonly reason: string; readonly message: string; readonly delayMs: number };

export const BACKOFF = { minMs: 10_000, maxMs: 300_000 } as const;

/** Exponential backoff from 10 s to 5 min by attempt number (1-based). */
export function backoffDelay(attempt: number): number {
  return Math.min(BACKOFF.maxMs, BACKOFF.minMs * 2 ** Math.max(0, attempt - 1));
}

/** Maps any thrown value to what the queue should do with the message that caused it. */
export function classify(err: unknown, attempt: number): Outcome {
  if (err instanceof StalledError) {
    return err.retrying
      ? { kind: OUTCOME.stalledRetrying, reason: err.reason, message: err.message, delayMs: backoffDelay(attempt) }
      : { kind: OUTCOME.stalledWaiting, reason: err.reason, message: err.message };
  }
  if (err instanceof RequeueAfterError) return { kind: OUTCOME.retryAfter, delayMs: err.delayMs };
  if (err instanceof TransientError) return { kind: OUTCOME.retryNow };
  if (err instanceof MalformedMessageError) return { kind: OUTCOME.retryNow };
  if (err instanceof KubeRequestError) return { kind: OUTCOME.retryAfter, delayMs: backoffDelay(attempt) };
  // Unknown failures are treated as transient but slowed down, so a bug cannot spin a queue.
  return { kind: OUTCOME.retryAfter, delayMs: backoffDelay(attempt) };
}

/** Fields that describe an error without any text a server or a user supplied. */
export function errorFields(err: unknown): Record<string, string | number> {
  if (err instanceof ControlPlaneError) {
    const out: Record<string, string | number> = { errorKind: err.kind, error: err.message };
    if (err instanceof KubeRequestError) out['httpStatus'] = err.status;
    return out;
  }
  const name = err instanceof Error ? err.name : typeof err;
  return { errorKind: 'unexpected', error: `unexpected ${name}` };
}

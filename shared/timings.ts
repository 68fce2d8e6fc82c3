// Every duration the control plane waits on, with the runbook's defaults. Deployments may
// change them (AICR_* settings, see aws/environment.ts); integration tests scale them down so the
// suite stays short. The runtime's own durations (actionTimeout, approvalTimeout) are spec.
import * as z from 'zod';
import { parseDuration } from './api/duration.ts';

const duration = (fallback: string, min = 1) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms < min) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a duration such as 30s, 10m or 1h30m${min > 1 ? ` (at least ${min} ms)` : ''}`,
        });
        return z.NEVER;
      }
      return ms;
    });

/** Setting name → schema; the names are the AICR_* environment variables that override them. */
export const TimingsSchema = z.object({
  /** First retry delay after a failed step; doubles per attempt. */
  AICR_BACKOFF_BASE: duration('10s'),
  /** Longest retry delay; jitter only ever shortens a delay, never pushes it past this. */
  AICR_BACKOFF_CAP: duration('5m'),
  /** How often Argo CD's registry token is refreshed. */
  AICR_TOKEN_REFRESH_INTERVAL: duration('6h'),
  /** A token expiring within this is stale (RegistryCredentialsStale). */
  AICR_TOKEN_STALE_WITHIN: duration('1h'),
  /** How soon the rollout step looks again while Argo CD is unavailable or a step waits on Argo CD's report. */
  AICR_ENGINE_RECHECK: duration('30s'),
  /** How long a failed AICR Job is kept. */
  AICR_FAILED_JOB_TTL: duration('24h'),
  /** How long a stalled stage's failed Jobs are kept. */
  AICR_STALLED_JOB_TTL: duration('168h'),
  /** Work of a runtime that no longer exists is swept once older than this (KROP-3). */
  AICR_SWEEP_STALE_AFTER: duration('5m'),
  /**
   * No sweep until this long after the forwarder started; longer than one forwarder window (70 s by
   * default, 320 s watching always).
   */
  AICR_SWEEP_GRACE: duration('11m'),
  /**
   * A step that keeps failing (an error retried by itself, known or not) this long turns the
   * runtime Stalled with StepFailing (STL-1), and goes on retrying.
   */
  AICR_FAILING_STALL_AFTER: duration('15m'),
});

export type TimingSettings = z.output<typeof TimingsSchema>;

export interface Timings {
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
  readonly tokenRefreshIntervalMs: number;
  readonly tokenStaleWithinMs: number;
  readonly engineRecheckMs: number;
  readonly failedJobTtlMs: number;
  readonly stalledJobTtlMs: number;
  readonly sweepStaleAfterMs: number;
  readonly sweepGraceMs: number;
  readonly failingStallAfterMs: number;
}

export function timingsFrom(s: TimingSettings): Timings {
  return {
    backoffBaseMs: s.AICR_BACKOFF_BASE,
    backoffCapMs: s.AICR_BACKOFF_CAP,
    tokenRefreshIntervalMs: s.AICR_TOKEN_REFRESH_INTERVAL,
    tokenStaleWithinMs: s.AICR_TOKEN_STALE_WITHIN,
    engineRecheckMs: s.AICR_ENGINE_RECHECK,
    failedJobTtlMs: s.AICR_FAILED_JOB_TTL,
    stalledJobTtlMs: s.AICR_STALLED_JOB_TTL,
    sweepStaleAfterMs: s.AICR_SWEEP_STALE_AFTER,
    sweepGraceMs: s.AICR_SWEEP_GRACE,
    failingStallAfterMs: s.AICR_FAILING_STALL_AFTER,
  };
}

/** The runbook's values. */
export const DEFAULT_TIMINGS: Timings = timingsFrom(TimingsSchema.parse({}));

/** Delay before attempt `attempt + 1`: base doubling per attempt, capped, with downward jitter. */
export function backoffDelay(
  attempt: number,
  t: Pick<Timings, 'backoffBaseMs' | 'backoffCapMs'>,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(30, Math.max(0, attempt - 1));
  const full = Math.min(t.backoffCapMs, t.backoffBaseMs * 2 ** exponent);
  // Up to a tenth shorter, so retries of many runtimes spread out without ever passing the cap.
  return Math.round(full * (1 - 0.1 * random()));
}

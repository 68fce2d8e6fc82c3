// Waiting for the runtime's Resolved condition in tests of AICR runs, with the control plane's
// backoff scaled down so retries happen within a test.
import { condition, getRuntime, waitFor } from '../../harness/runtime.ts';
import { DEFAULT_TIMINGS, type Timings } from '../../shared/timings.ts';

export const SCALED_TIMINGS: Timings = { ...DEFAULT_TIMINGS, backoffBaseMs: 1_000, backoffCapMs: 4_000 };

export interface ResolvedCondition {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** Waits until Resolved satisfies `ok`; on a timeout the error shows the last Resolved seen. */
export async function resolvedWith(
  what: string,
  ok: (c: ResolvedCondition) => boolean,
  timeoutMs: number,
): Promise<ResolvedCondition> {
  let last: unknown;
  try {
    return await waitFor(
      what,
      async () => {
        const c = condition(await getRuntime(), 'Resolved');
        last = c;
        return c && ok(c) ? c : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; Resolved was ${JSON.stringify(last)}`, { cause: err });
  }
}

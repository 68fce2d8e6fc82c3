// The function's deadline, as every request made on behalf of one invocation sees it. A Lambda
// handler runs its work inside `withDeadline`; each Kubernetes request is then cut short so it
// ends before the deadline, and a step is not started when too little time is left, so the
// invocation always has time to hand its work to a retry instead of dying as a Lambda timeout.
// Outside a handler (local mode, tests) there is no deadline.
import { AsyncLocalStorage } from 'node:async_hooks';

const store = new AsyncLocalStorage<{ readonly at: number }>();

/** Time kept back at the end of an invocation to send the retry message and flush the logs. */
export const DEADLINE_RESERVE_MS = 5_000;

/** A step is started only with at least this long left; otherwise its message is handed on at once. */
export const STEP_START_MIN_MS = 10_000;

export function withDeadline<T>(remainingMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  if (remainingMs === undefined) return fn();
  return store.run({ at: Date.now() + remainingMs }, fn);
}

/** Milliseconds until the invocation's deadline, or undefined outside one. */
export function remainingMs(): number | undefined {
  const d = store.getStore();
  return d === undefined ? undefined : d.at - Date.now();
}

/** How long a request may take: its own limit, shortened so it ends before the reserve. */
export function requestBudgetMs(limitMs: number): number {
  const left = remainingMs();
  return left === undefined ? limitMs : Math.min(limitMs, left - DEADLINE_RESERVE_MS);
}

// The long messages of the reasons any step's condition can carry, beside the guide's entries for
// them (reasonGuide.ts), so the steps a person is told to take are kept in one place.

/** What STL-1 says about a step that keeps failing. */
export interface Failing {
  readonly step: string;
  /** When the work first failed, as the API writes times. */
  readonly since: string;
  /** The error's class, as the log names it (errorKind). */
  readonly errorKind: string;
  /** The error's own text, chosen by the control plane (never a server's or a user's). */
  readonly error: string;
}

/** StepFailing: the step has failed on every attempt since `since` and still retries. */
export function stepFailing(f: Failing): string {
  return (
    `step ${f.step} has failed on every attempt since ${f.since}, last with ${f.errorKind}: ${f.error}. ` +
    'It keeps retrying with backoff and this clears by itself once the step succeeds; meanwhile look at ' +
    `the control plane's log for step ${f.step} (errorKind ${f.errorKind})`
  );
}

// The guide's entries for the reasons any step's condition can carry (a refused request, a step
// failing past its bound, a refused status write); shared/status/reasonGuide.ts places them in the table.
import type { ReasonGuide } from './reasonGuideEntry.ts';

export const ANY_STEP_GUIDE = {
  APIRequestRefused: {
    on:
      "the owning step's condition (`Resolved=False`, `EngineAvailable=False`, `InventoryConsistent=False` or " +
      '`Released=False`)',
    cause:
      'the Kubernetes API server refused a request for good (e.g. 403); the message names the identity, ' +
      'HTTP status and refused fields',
    fix:
      'fix the RBAC or admission policy; retries back off up to every 5 minutes ' +
      '([entry](#stalled-with-apirequestrefused))',
  },
  StepFailing: {
    on:
      "the owning step's condition (`Resolved=False`, `EngineAvailable=False`, `InventoryConsistent=False` or " +
      '`Released=False`)',
    cause:
      'a step has failed on every attempt for longer than `AICR_FAILING_STALL_AFTER` (15 minutes by default) ' +
      'with an error that is retried by itself: a control plane bug, or a failure no rule knows; the message ' +
      'names the step, the error class and its last error',
    fix:
      "read the control plane's log for the step and error class the message names; it keeps retrying and " +
      'clears by itself once the step succeeds ([entry](#stalled-with-stepfailing))',
  },
  StatusWriteRefused: {
    on:
      "the owning step's condition (`Resolved=False`, `EngineAvailable=False`, `InventoryConsistent=False` or " +
      '`Released=False`)',
    cause: "the API server refused the control plane's own status write with 422: a control plane bug",
    fix: 'report it with the log; the work is not retried forever ([entry](#stalled-with-statuswriterefused))',
  },
} as const satisfies Record<string, ReasonGuide>;

// The guide's entries for the reasons the Released condition carries (rollouts, removals,
// adoption's aftermath); shared/status/reasonGuide.ts places them in the table.
import type { ReasonGuide } from './reasonGuideEntry.ts';

export const RELEASED_GUIDE = {
  Released: {
    on: '`Released=True`',
    cause: 'the target plan is rolled out and validated',
    fix: 'nothing to do',
  },
  AwaitingPlan: {
    on: '`Released=False`',
    cause: 'no target plan is resolved yet for the rollout side to act on',
    fix: 'nothing; it follows `Resolved`',
  },
  Assessing: {
    on: '`Released=False`',
    cause:
      "`aicr upgrade-check` is assessing the move from the active plan's recipe to the target's (an " +
      '`aicr-assessment-*` Job in `aicr-jobs`); no rollout exists yet',
    fix: 'nothing; the rollout is created with its verdicts',
  },
  RolloutProgressing: {
    on: '`Released=False`',
    cause: 'a rollout is writing releases to Argo CD one step at a time',
    fix: 'nothing; `kubectl aicr describe <rollout>` shows the step in flight',
  },
  OutsideMaintenanceWindow: {
    on: '`Released=False`',
    cause:
      'the next rollout step waits for a maintenance window of `spec.maintenance.windows`, ' +
      "or for a sync window of Argo CD's AppProject that holds its Application (a deny window is active, " +
      'or no allow window is); the message names which and when it ends',
    fix:
      'nothing: it goes on by itself when the window lets it; to go sooner, change `spec.maintenance.windows` ' +
      "([entry](#waiting-for-a-maintenance-window)) or the chart's `argocd.syncWindows` " +
      '([entry](#waiting-for-an-argo-cd-sync-window))',
  },
  WaitingForWorkloads: {
    on: '`Released=False`',
    cause:
      'the next step is of a release that disrupts GPU Nodes (`spec.workloads`), and protected Pods run on GPU ' +
      'Nodes; the message names up to ten and the count',
    fix:
      'nothing: it starts once they end; past `spec.workloads.maxWait` a person decides ' +
      '([entry](#waiting-for-running-gpu-work))',
  },
  WorkloadsStillRunning: {
    on: '`Released=False`, `Stalled=True`',
    cause: 'protected GPU work still runs after `spec.workloads.maxWait`; the control plane never evicts',
    fix:
      'let the work end (the rollout goes on by itself), or `kubectl aicr approve --disrupt <rollout>` ' +
      '([entry](#waiting-for-running-gpu-work))',
  },
  Validating: {
    on: '`Released=False`',
    cause: 'deployment validation is running for the rollout',
    fix:
      'nothing; `kubectl aicr describe <rollout>` names its Job in `aicr-validation` ' +
      '([reading the result](#validation-failed-reading-the-result))',
  },
  AwaitingApproval: {
    on: '`Released=False`',
    cause: 'a rollout waits for an approver; nothing has been written',
    fix: '`kubectl aicr approve` ([entry](#stalled-waiting-for-approval-or-acknowledgement))',
  },
  AwaitingAcknowledgement: {
    on: '`Released=False`',
    cause: 'a manual release was applied and its record lists steps to do after it',
    fix:
      'do the "Recorded steps", then `kubectl aicr acknowledge` ' +
      '([entry](#stalled-waiting-for-approval-or-acknowledgement))',
  },
  TransitionBlocked: {
    on: '`Released=False`',
    cause: 'the move to the target needs a migration the control plane does not perform; no rollout is created',
    fix: 'revert the input, or pin the active plan ([entry](#stalled-with-transitionblocked))',
  },
  InventoryDrift: {
    on: '`Released=False`',
    cause: 'Applications changed after the rollout was created and approved',
    fix:
      'undo the changes the message lists, or retry (new rollout, ' +
      'new approval) ([entry](#a-rollout-in-progress-is-stalled))',
  },
  StepUnknown: {
    on: '`Released=False`',
    cause: 'a rollout step names a release the target plan does not have',
    fix: 'retry the rollout ([entry](#a-rollout-in-progress-is-stalled))',
  },
  ChartChanged: {
    on: '`Released=False`',
    cause:
      'a chart version the plan pinned by digest holds other bytes in the registry (pushed again after the plan ' +
      'was made), or is gone; nothing was written',
    fix:
      'push the pinned chart back and the rollout goes on by itself, or delete the plan so resolution builds it ' +
      'again ([entry](#a-chart-changed-under-its-plan))',
  },
  MovedReleaseMissing: {
    on: '`InventoryConsistent=False`',
    cause: 'a release that an unsuccessful rollout moved to its target plan has lost its Application',
    fix: 'retry, or revert the runtime change behind that target ([entry](#a-rollout-in-progress-is-stalled))',
  },
  PlanMissing: {
    on: '`InventoryConsistent=False` (the active plan) or `Released=False` (the target plan)',
    cause:
      "the active plan's ConfigMap is gone and the Applications rebuild to another digest, or not at all; " +
      'or the target plan is gone',
    fix:
      'find the Application edited outside the control plane; the next rollout needs approval ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  PlanWithoutRecipe: {
    on: '`Released=False`',
    cause: 'the target plan was rebuilt from Applications, has no recipe, and validation is `Required`',
    fix:
      're-resolve it, pin another plan, or set `spec.validation.deployment: Disabled` ' +
      '([entry](#plans-that-cannot-be-used))',
  },
  ValidationUnavailable: {
    on: '`Released=False`',
    cause: 'deployment validation cannot run',
    fix: 'make validation available in `aicr-validation` ([entry](#stalled-with-validationunavailable))',
  },
  RolloutFailed: {
    on: '`Released=False`',
    cause: 'the last rollout failed (a step, or validation); releases it moved stay at its target',
    fix:
      'read `kubectl aicr describe <rollout>`, fix, then `kubectl aicr retry <rollout>`, change the target, ' +
      'or pin the active plan to roll back ([entry](#stalled-after-a-failed-expired-or-revoked-rollout))',
  },
  RolloutExpired: {
    on: '`Released=False`',
    cause: 'the last rollout was not approved before its deadline',
    fix: 'retry, or change the target ([entry](#stalled-after-a-failed-expired-or-revoked-rollout))',
  },
  RolloutRevoked: {
    on: '`Released=False`',
    cause: 'someone revoked the last rollout (`kubectl aicr revoke`); its Event names who and why',
    fix:
      '`kubectl aicr retry <rollout>`, change the target, or pin the active plan to roll back ' +
      '([entry](#stalled-after-a-failed-expired-or-revoked-rollout))',
  },
  RemovalFailed: {
    on: '`Released=False`',
    cause: 'with `deletionPolicy: Delete`, the removal rollout failed or expired; the finalizer stays',
    fix: 'fix the cause and retry ([entry](#stalled-with-removalfailed-or-stuck-deleting))',
  },
} satisfies Record<string, ReasonGuide>;

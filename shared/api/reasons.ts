// Every reason a runtime's conditions can carry, with the condition that carries it and what
// it means for the summary. A reason not in this table cannot be written: the Reason type is
// its keys. docs/troubleshooting.md has one row per reason (a unit test keeps them in step).
import { CONDITION, type DomainConditionType } from './constants.ts';

export const REASON_CLASS = {
  /** Work is under way; nobody needs to act. */
  progressing: 'progressing',
  /** A person must change an input or run a command; nothing retries until then. */
  stalledWaiting: 'stalled-waiting',
  /** A person should look, but the cause can clear outside the runtime, so work keeps retrying. */
  stalledRetrying: 'stalled-retrying',
  /** The condition is True and nothing is wrong. */
  healthy: 'healthy',
} as const;
export type ReasonClass = (typeof REASON_CLASS)[keyof typeof REASON_CLASS];

export interface ReasonRow {
  /** The domain conditions allowed to carry it (more than one only for reasons any step can meet). */
  readonly on: readonly DomainConditionType[];
  readonly class: ReasonClass;
}

const { resolved: R, engineAvailable: E, inventoryConsistent: I, released: L } = CONDITION;
const ANY = [R, E, I, L] as const;
const { progressing, stalledWaiting, stalledRetrying, healthy } = REASON_CLASS;

export const REASONS = {
  // Resolution (the resolve step).
  Resolved: { on: [R], class: healthy },
  Resolving: { on: [R], class: progressing },
  InvalidSpec: { on: [R], class: stalledWaiting },
  InvalidConfiguration: { on: [R], class: stalledRetrying },
  AICRVersionMismatch: { on: [R], class: stalledWaiting },
  AICRStageStalled: { on: [R, L], class: stalledWaiting },
  Unauthorized: { on: [R], class: stalledWaiting },
  RegistryCredentialsUnavailable: { on: [R], class: stalledRetrying },
  BundleUnreadable: { on: [R], class: stalledWaiting },
  ChartUnavailable: { on: [R], class: stalledWaiting },
  NamespaceNotAllowed: { on: [R], class: stalledWaiting },
  PlanTooLarge: { on: [R], class: stalledWaiting },
  // Released carries it too, also while a plan that does not read back blocks a deletion with policy Orphan.
  PlanUnreadable: { on: [R, I, L], class: stalledWaiting },
  PlanOfAnotherRuntime: { on: [R], class: stalledWaiting },
  NotFound: { on: [R], class: stalledWaiting },
  // Discovery (the snapshot step records them; Resolved carries them).
  DiscoveryFailed: { on: [R], class: stalledWaiting },
  NoGPUNodes: { on: [R], class: stalledRetrying },
  NodeGroupMismatch: { on: [R], class: stalledRetrying },
  SnapshotUnreadable: { on: [R], class: stalledRetrying },
  // The engine (Argo CD) and its registry credentials.
  EngineReady: { on: [E], class: healthy },
  EngineUnavailable: { on: [E], class: stalledRetrying },
  RegistryCredentialsStale: { on: [E], class: stalledRetrying },
  EngineSuspended: { on: [E], class: stalledWaiting },
  EngineSuspensionRefused: { on: [E], class: stalledRetrying },
  // Between rollouts (the drift check).
  InventoryConsistent: { on: [I], class: healthy },
  // Rollouts, as seen on the runtime (the rollout step).
  Released: { on: [L], class: healthy },
  AwaitingPlan: { on: [L], class: progressing },
  Assessing: { on: [L], class: progressing },
  RolloutProgressing: { on: [L], class: progressing },
  OutsideMaintenanceWindow: { on: [L], class: progressing },
  WaitingForWorkloads: { on: [L], class: progressing },
  Validating: { on: [L], class: progressing },
  AwaitingApproval: { on: [L], class: stalledWaiting },
  AwaitingAcknowledgement: { on: [L], class: stalledWaiting },
  TransitionBlocked: { on: [L], class: stalledWaiting },
  InventoryDrift: { on: [L], class: stalledWaiting },
  OrphanedObjectsPresent: { on: [L], class: stalledWaiting },
  AdoptionBlocked: { on: [L], class: stalledWaiting },
  StepUnknown: { on: [L], class: stalledWaiting },
  ChartChanged: { on: [L], class: stalledWaiting },
  WorkloadsStillRunning: { on: [L], class: stalledWaiting },
  MovedReleaseMissing: { on: [I], class: stalledWaiting },
  PlanMissing: { on: [I, L], class: stalledWaiting },
  PlanWithoutRecipe: { on: [L], class: stalledWaiting },
  ValidationUnavailable: { on: [L], class: stalledWaiting },
  RolloutFailed: { on: [L], class: stalledWaiting },
  RolloutExpired: { on: [L], class: stalledWaiting },
  RolloutRevoked: { on: [L], class: stalledWaiting },
  RemovalFailed: { on: [L], class: stalledWaiting },
  // Any step.
  APIRequestRefused: { on: ANY, class: stalledRetrying },
  // A person must look (a bug, or an error no rule knows), though the step goes on retrying (STL-1).
  StepFailing: { on: ANY, class: stalledWaiting },
  StatusWriteRefused: { on: ANY, class: stalledWaiting },
} as const satisfies Record<string, ReasonRow>;

export type Reason = keyof typeof REASONS;

/** The reasons discovery fails with; the snapshot step records them in status.discovery. */
export const DISCOVERY_REASONS = [
  'DiscoveryFailed',
  'NoGPUNodes',
  'NodeGroupMismatch',
  'SnapshotUnreadable',
] as const satisfies readonly Reason[];
export type DiscoveryReason = (typeof DISCOVERY_REASONS)[number];

export function isDiscoveryReason(value: string): value is DiscoveryReason {
  return (DISCOVERY_REASONS as readonly string[]).includes(value);
}

export function reasonRow(reason: string): ReasonRow | undefined {
  return Object.hasOwn(REASONS, reason) ? REASONS[reason as Reason] : undefined;
}

export function isStalledClass(c: ReasonClass): boolean {
  return c === REASON_CLASS.stalledWaiting || c === REASON_CLASS.stalledRetrying;
}

/** The reason each summary condition shows when every domain condition is healthy. */
/** Reasons only the summary conditions carry, when no domain reason explains the runtime. */
export const SUMMARY_REASON = {
  ready: 'Ready',
  notStalled: 'NotStalled',
  idle: 'Idle',
  noStatusYet: 'AwaitingFirstReport',
  newGeneration: 'NewGeneration',
} as const;

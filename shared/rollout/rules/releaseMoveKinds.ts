// The facts a release's move is decided from (releaseMove.ts decides it) and the moves it can make.
import type { GenericObject } from '../../kube/kinds.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import type { Release } from '../../plans/release.ts';
import type { WindowNow } from './maintenanceSpec.ts';
import type { StepState } from './progress.ts';
import type { ReleaseWords } from './releaseWords.ts';
import type { Unreadable } from '../../api/runtimeReading.ts';
import type { RolloutStep } from '../../api/runtimeRollout.ts';
import type { RunningWork, WorkloadGuard } from './workloadGuard.ts';

/** Whether the workload guard holds this release: not at all, or by a guard that may not read. */
export type Guarded =
  { readonly applies: false } | { readonly applies: true; readonly guard: WorkloadGuard | Unreadable };

/** A chart pin as the registry answers it; `unchecked` carries the whole reason nothing is written yet. */
export type PinsFact =
  | { readonly state: 'held' }
  | { readonly state: 'changed'; readonly message: string }
  | { readonly state: 'unchecked'; readonly message: string };

export type ClosedWindow = Extract<WindowNow, { open: false }>;

/** What one release's move is decided from. The last four are read only when a move asks for them. */
export interface ReleaseFacts {
  readonly step: RolloutStep;
  readonly state: StepState;
  readonly words: ReleaseWords;
  readonly runtimeUID: string;
  readonly now: Date;
  readonly actionTimeoutMs: number;
  /** The target plan's Application and release for the step; a removal or an adoption has none. */
  readonly intended?: PlanApplication;
  readonly release?: Release;
  readonly acknowledged: boolean;
  /** The runtime's own maintenance windows, now. */
  readonly maintenance: WindowNow;
  readonly guard: Guarded;
  /** The look's own listing of the release's Application, whichever runtime it names. */
  readonly listed?: GenericObject;
  readonly live?: GenericObject | 'absent';
  readonly syncWindow?: WindowNow;
  readonly work?: RunningWork;
  readonly pins?: PinsFact;
}

export type FactName = 'live' | 'syncWindow' | 'work' | 'pins';

/** The one write a move makes to Argo CD, after its start is recorded. */
export type ReleaseAction =
  | { readonly name: 'write'; readonly app: PlanApplication; readonly refresh: boolean }
  | { readonly name: 'remove' }
  | { readonly name: 'adopt' };

/** How a look that stops at this release ends. */
export type LookEnd =
  | { readonly kind: 'progress' }
  | { readonly kind: 'window'; readonly what: 'waits before' | 'holds at'; readonly window: ClosedWindow }
  | { readonly kind: 'hold'; readonly why: string }
  | {
      readonly kind: 'guard';
      readonly reason: 'WaitingForWorkloads' | 'WorkloadsStillRunning';
      readonly message: string;
    }
  | {
      readonly kind: 'stall';
      readonly reason: 'StepUnknown' | 'AwaitingAcknowledgement' | 'ChartChanged';
      readonly message: string;
    };

/** When the look after a write comes: at a release's own pace, or at once. */
export type AfterAct = 'progress' | 'soon';

export type ReleaseMove =
  | { readonly kind: 'need'; readonly fact: FactName }
  /** Done: the next release may move in the same look. */
  | { readonly kind: 'done'; readonly state: StepState }
  /**
   * Its start recorded, then its one write. `soon`: an adoption's write wakes nothing the control
   * plane watches, so the next look is asked for at once.
   */
  | { readonly kind: 'act'; readonly state: StepState; readonly action: ReleaseAction; readonly then: AfterAct }
  | { readonly kind: 'end'; readonly state: StepState; readonly end: LookEnd }
  | { readonly kind: 'fail'; readonly state: StepState; readonly why: string };

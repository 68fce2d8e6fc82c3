// What every step is given and gives back. A step observes live state, decides, acts, and
// reports its owned conditions; the framework (run.ts) reads the runtime before it and writes
// the status after it, also when it fails.
import type { Configuration } from '../configuration/schema.ts';
import type { KubePort } from '../kube/port.ts';
import type { RuntimeObject } from '../kube/kinds.ts';
import type { LogContext, Logger } from '../observability/log.ts';
import type { WorkItem } from '../queue/workItem.ts';
import type { DesiredCondition } from '../status/conditions.ts';
import type { Timings } from '../timings.ts';

export interface StepDeps {
  readonly kube: KubePort;
  readonly log: Logger;
  readonly now: () => Date;
  readonly timings: Timings;
}

export interface StepContext extends StepDeps {
  readonly item: WorkItem;
  /** The runtime the message names, read just now (same name and UID). */
  readonly runtime: RuntimeObject;
  /** The configuration as this look reads it, once; configuration.ts says why it may already be under way. */
  readonly configuration?: () => Promise<Configuration>;
}

export interface StepReport {
  /** The step's owned conditions; undefined writes nothing (a runtime being deleted, say). */
  readonly conditions?: readonly DesiredCondition[];
  /** The step's owned status fields (its row's ownsFields) as they should be; undefined keeps them as they are. */
  readonly fields?: Readonly<Record<string, string | undefined>>;
  /** Look again after this long even if nothing changes: a wait only time can end. */
  readonly recheckAfterMs?: number;
  /** Names the recheck, so runs asking for the same one arm it once (periodic work, such as the token refresh). */
  readonly recheckKey?: string;
  /**
   * A transient failure the conditions already show (REG-1: the registry is unreachable): the
   * framework retries with its backoff by attempt, as for a thrown transient error, but never
   * dead-letters it, since the cause clears by itself.
   */
  readonly backoff?: boolean;
  /** The runtime as the step itself last wrote it (its metadata), so the status write carries that resourceVersion. */
  readonly runtime?: RuntimeObject;
  /** What the step learned its work concerns (rollout, plan digest, run), for the lines logged after it (OBS-1). */
  readonly log?: Pick<LogContext, 'rollout' | 'planDigest' | 'runId'>;
}

export type StepRunner = (ctx: StepContext) => Promise<StepReport>;

export interface StepResult {
  /** Status applies sent: the step's own and the summary's. */
  readonly writes: number;
  readonly recheckAfterMs?: number;
  readonly recheckKey?: string;
  readonly backoff?: boolean;
}

/** The report with more of what its work concerns; what the report already names wins, being the more specific. */
export function concerning<R extends StepReport>(report: R, log: NonNullable<StepReport['log']>): R {
  return { ...report, log: { ...log, ...report.log } };
}

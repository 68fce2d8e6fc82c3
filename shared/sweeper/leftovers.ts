// The sweeper (KROP-3): work the control plane started can outlive its runtime (a runtime
// deleted, or replaced by one of the same name, while its AICR Jobs run or its timers are armed).
// Each such piece records the runtime UID it was started for (the Job's runtime-uid annotation,
// the timer's name); the liveness record is the runtime itself, as the API server holds it. A
// piece whose runtime UID names no runtime is removed once it is older than the stale period.
// The first sweep waits a grace period after the forwarder started, longer than one forwarder
// window, so a forwarder that has not yet delivered a runtime's first events is never the reason
// work is removed (the invariant is in docs/operations.md).
import { ANNOTATION, LABEL, MANAGED_BY_VALUE } from '../api/constants.ts';
import { STAGE_NAMESPACE } from '../aicr/stages.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Logger } from '../observability/log.ts';

export interface SweepSettings {
  /** A leftover younger than this is kept: it may belong to work still being handed over. */
  readonly staleAfterMs: number;
  /** No sweep until this long after the forwarder started; must exceed one forwarder window. */
  readonly graceMs: number;
}

export interface SweepDeps {
  readonly kube: Pick<KubePort, 'list' | 'delete'>;
  readonly log: Logger;
  readonly now: () => Date;
  /** When the forwarder started watching (local mode: the process; AWS: its first checkpoint). */
  readonly startedAt: Date;
  /** Armed timers, where they outlive a process (EventBridge Scheduler). */
  readonly timers?: { sweep(live: ReadonlySet<string>): Promise<string[]> };
}

export type SweepResult =
  | { readonly skipped: 'grace' }
  | { readonly jobs: readonly string[]; readonly timers: readonly string[]; readonly live: ReadonlySet<string> };

/** The namespaces the control plane runs AICR Jobs in. */
const JOB_NAMESPACES = [...new Set(Object.values(STAGE_NAMESPACE))];

async function sweepJobs(d: SweepDeps, live: ReadonlySet<string>, staleAfterMs: number): Promise<string[]> {
  const removed: string[] = [];
  const now = d.now().getTime();
  for (const namespace of JOB_NAMESPACES) {
    const { items } = await d.kube.list(KIND.job, {
      namespace,
      labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
    });
    for (const job of items) {
      const uid = job.metadata.annotations?.[ANNOTATION.runtimeUID];
      const age = now - Date.parse(job.metadata.creationTimestamp ?? '');
      if (!uid || live.has(uid) || job.metadata.deletionTimestamp || !(age >= staleAfterMs)) continue;
      await d.kube.delete(KIND.job, job.metadata.name, namespace, { propagationPolicy: 'Background' });
      removed.push(`${namespace}/${job.metadata.name}`);
    }
  }
  return removed;
}

/** One sweep: Jobs and timers of runtimes that no longer exist, once stale and past the grace period. */
export async function sweepLeftovers(d: SweepDeps, s: SweepSettings): Promise<SweepResult> {
  if (d.now().getTime() - d.startedAt.getTime() < s.graceMs) return { skipped: 'grace' };
  const live = new Set((await d.kube.list(KIND.clusterRuntime)).items.map((r) => r.metadata.uid));
  const jobs = await sweepJobs(d, live, s.staleAfterMs);
  const timers = d.timers ? await d.timers.sweep(live) : [];
  if (jobs.length + timers.length > 0)
    d.log.info('removed work of runtimes that no longer exist', { jobs, timers: timers.length });
  return { jobs, timers, live };
}

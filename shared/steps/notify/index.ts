// The notify step (NTF-1, NTF-2): on a change of the runtime's conditions it works out which
// notifications are due (shared/notifications/derive.ts), sends them, and only then records
// what it told in status.notifications. A message handled twice finds the record moved and
// sends nothing; a send that fails leaves the record as it was and is retried with backoff, so
// a notification is sent at least once and, once taken, never again. It never holds up a
// rollout: no other step reads what it writes.
import { KIND, type RuntimeObject } from '../../kube/kinds.ts';
import type { Condition } from '../../api/condition.ts';
import { FIELD_MANAGER } from '../../api/constants.ts';
import { readStatus } from '../../api/runtimeReading.ts';
import { listRollouts } from '../../rollout/io/rollouts.ts';
import { type Notice, type NoticeRecord, dueNotices, recordChanged } from '../../notifications/derive.ts';
import { eventBridgeSink } from '../../notifications/eventBridge.ts';
import { type NotificationSink, logSink } from '../../notifications/sink.ts';
import type { StepContext, StepRunner } from '../../look/contract.ts';

/** Settings the step reads from its function's environment. */
export interface NotifySettings {
  readonly eventBus?: string | undefined;
  /** The deployment's own cluster, as its notifications name it. */
  readonly cluster: string;
  readonly deployment?: string | undefined;
}

export function notifySettings(env: NodeJS.ProcessEnv = process.env): NotifySettings {
  return {
    eventBus: env['AICR_EVENT_BUS'] || undefined,
    cluster: env['AICR_EKS_CLUSTER_NAME'] || env['AICR_KUBE_CONTEXT'] || 'local',
    deployment: env['AICR_SERVICE_NAME'] || undefined,
  };
}

/**
 * What the status says, part by part (readStatus): read whole, one over-long field another step
 * wrote would drop the record of what was told, and every notification would be sent again.
 */
function statusOf(runtime: RuntimeObject): {
  conditions: readonly Condition[];
  activePlan?: string;
  record?: NoticeRecord;
} {
  const { conditions, activePlan, notifications } = readStatus(runtime.status);
  return { conditions, ...(activePlan ? { activePlan } : {}), ...(notifications ? { record: notifications } : {}) };
}

async function writeRecord(ctx: StepContext, record: NoticeRecord): Promise<void> {
  const obj = { metadata: { name: ctx.runtime.metadata.name }, status: { notifications: record } };
  // Forced and without a resourceVersion: status.notifications has no other writer (ADR 0003),
  // and the runs of one runtime are serial on its queue's message group.
  await ctx.kube.applyStatus(KIND.clusterRuntime, obj, { fieldManager: FIELD_MANAGER.notify, force: true });
}

/** Sends what is due; false when the sink refused them, so the run backs off and the record stays. */
async function sendNotices(ctx: StepContext, sink: NotificationSink, notices: readonly Notice[]): Promise<boolean> {
  const sent = await sink.put(notices);
  if (!sent.ok) {
    ctx.log.warn('notifications not sent; retrying with backoff', {
      to: sink.called,
      count: notices.length,
      cause: sent.cause,
      fix: "check the notify function's AWS identity (events:PutEvents on the bus) and that the bus exists",
    });
    return false;
  }
  ctx.log.info('notifications sent', { to: sink.called, count: notices.length, kinds: notices.map((n) => n.kind) });
  return true;
}

/** The step with its sink chosen per run: the given one (tests), or by the settings. */
export function notifyRunner(
  sinkOf?: (ctx: StepContext) => NotificationSink,
  settings: () => NotifySettings = notifySettings,
): StepRunner {
  return async (ctx) => {
    if (ctx.runtime.metadata.deletionTimestamp) return {};
    const { eventBus, cluster, deployment } = settings();
    const { conditions, activePlan, record } = statusOf(ctx.runtime);
    const rollouts = await listRollouts(ctx.kube, ctx.runtime.metadata.uid);
    const due = dueNotices({
      runtime: {
        name: ctx.runtime.metadata.name,
        uid: ctx.runtime.metadata.uid,
        creationTimestamp: ctx.runtime.metadata.creationTimestamp,
        conditions,
        activePlan,
      },
      rollouts,
      record,
      cluster: ctx.item.cluster ?? cluster,
      deployment,
      now: ctx.now(),
    });
    if (due.notices.length > 0) {
      const sink = sinkOf ? sinkOf(ctx) : eventBus ? eventBridgeSink(eventBus) : logSink(ctx.log);
      if (!(await sendNotices(ctx, sink, due.notices))) return { backoff: true };
    }
    if (recordChanged(record, due.record)) await writeRecord(ctx, due.record);
    return {};
  };
}

export const runNotify: StepRunner = notifyRunner();

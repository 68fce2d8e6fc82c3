// Which notifications are due (NTF-1, NTF-2): the runtime's conditions and its newest rollout are
// read as three channels, each with a signature of its current state, and a notification is due
// when a channel moves into a state worth telling. The record of the signatures last told lives
// in the runtime's status (status.notifications), so a message handled twice finds the state
// already told and sends nothing. Pure: the notify step reads, this decides, the step sends.
import { createHash } from 'node:crypto';
import { CONDITION } from '../api/constants.ts';
import type { Condition } from '../api/condition.ts';
import type { RolloutObject } from '../rollout/rules/rolloutObject.ts';
import { findCondition } from '../status/conditions.ts';
import { guideOf } from '../status/reasonTable.ts';
import { NOTICE_KIND, NOTICE_VERSION, type NoticeKind } from './kinds.ts';

/** The signatures last told per channel, and how many notifications were sent in all. */
export interface NoticeRecord {
  readonly sent: number;
  readonly rollout: string;
  readonly released: string;
  readonly stalled: string;
}
type Channel = Exclude<keyof NoticeRecord, 'sent'>;
const CHANNELS: readonly Channel[] = ['rollout', 'released', 'stalled'];

/** A runtime younger than this has nothing told yet that could be old news: its first states are news. */
export const FRESH_RUNTIME_MS = 10 * 60_000;

export interface NoticeInput {
  readonly runtime: {
    readonly name: string;
    readonly uid: string;
    readonly creationTimestamp?: string | undefined;
    readonly conditions: readonly Condition[];
    readonly activePlan?: string | undefined;
  };
  /** The runtime's rollouts, oldest first. */
  readonly rollouts: readonly RolloutObject[];
  readonly record: NoticeRecord | undefined;
  /** The cluster, as the deployment names it (a fleet's member, or its own). */
  readonly cluster: string;
  /** The deployment that sends it (its service name), so one account's rules can tell deployments apart. */
  readonly deployment?: string | undefined;
  readonly now: Date;
}

export interface ReleaseChange {
  readonly release: string;
  readonly action: string;
  readonly verdict?: string;
  readonly fromVersion?: string;
  readonly toVersion?: string;
}

export interface NoticeDetail {
  readonly version: number;
  /** The same for every send of one notification: receivers drop repeats by it. */
  readonly key: string;
  readonly kind: NoticeKind;
  readonly deployment?: string;
  readonly cluster: string;
  readonly runtime: { readonly name: string; readonly uid: string };
  readonly at: string;
  /** The runtime condition that tells it, as it stood. */
  readonly condition?: {
    readonly type: string;
    readonly status: string;
    readonly reason: string;
    readonly message: string;
  };
  readonly rollout?: {
    readonly name: string;
    readonly type: string;
    readonly fromPlan?: string;
    readonly toPlan: string;
    readonly releases: readonly ReleaseChange[];
    readonly currentStep?: number;
    readonly outcome?: string;
    readonly deadline?: string;
    readonly approveCommand?: string;
  };
  /** For a stall: its reason, and the cause and fix from the reason guide. */
  readonly stalled?: {
    readonly reason: string;
    readonly message: string;
    readonly cause?: string;
    readonly fix?: string;
  };
}

export interface Notice {
  readonly kind: NoticeKind;
  readonly detailType: string;
  readonly detail: NoticeDetail;
}

interface Reading {
  readonly signature: string;
  /**
   * What to tell on moving into this state; undefined tells nothing (a state not worth telling, or
   * one another channel tells).
   */
  readonly kind?: NoticeKind;
}

const QUIET: Reading = { signature: '' };

const ENDED_KIND: Readonly<Record<string, NoticeKind>> = {
  Failed: 'rolloutFailed',
  Expired: 'rolloutExpired',
  Revoked: 'rolloutRevoked',
};
const WAITING_KIND: Readonly<Record<string, NoticeKind>> = {
  AwaitingApproval: 'awaitingApproval',
  OutsideMaintenanceWindow: 'windowWait',
  WaitingForWorkloads: 'workloadWait',
};
/** Stalled reasons the rollout channel already tells. */
const TOLD_BY_ROLLOUT = new Set(['AwaitingApproval', 'RolloutFailed', 'RolloutExpired', 'RolloutRevoked']);

function endedReading(name: string, outcome: string): Reading {
  const kind = ENDED_KIND[outcome];
  return kind ? { signature: `${outcome}/${name}`, kind } : QUIET;
}

function rolloutReading(r: RolloutObject | undefined): Reading {
  if (!r) return QUIET;
  const name = r.metadata.name;
  if (r.status?.outcome) return endedReading(name, r.status.outcome);
  const reason = findCondition(r.status?.conditions, CONDITION.ready)?.reason ?? '';
  const kind = WAITING_KIND[reason];
  if (!kind) return QUIET;
  // A wait is one per step: the next step waiting again is news again.
  return {
    signature: kind === 'awaitingApproval' ? `${reason}/${name}` : `${reason}/${name}/${r.status?.currentStep ?? 0}`,
    kind,
  };
}

function releasedReading(input: NoticeInput): Reading {
  const released = findCondition(input.runtime.conditions, CONDITION.released);
  return released?.status === 'True'
    ? { signature: `Released/${input.runtime.activePlan ?? ''}`, kind: 'released' }
    : QUIET;
}

function stalledReading(input: NoticeInput): Reading {
  const stalled = findCondition(input.runtime.conditions, CONDITION.stalled);
  if (stalled?.status !== 'True') return QUIET;
  const signature = `${stalled.reason}@${stalled.lastTransitionTime}`;
  return TOLD_BY_ROLLOUT.has(stalled.reason) ? { signature } : { signature, kind: 'stalled' };
}

function readings(input: NoticeInput): Readonly<Record<Channel, Reading>> {
  return {
    rollout: rolloutReading(input.rollouts.at(-1)),
    released: releasedReading(input),
    stalled: stalledReading(input),
  };
}

/**
 * The record to start from: nothing told for a new runtime; for one that predates notifications,
 * what it shows now, told silently.
 */
function startingRecord(input: NoticeInput, now: Readonly<Record<Channel, Reading>>): NoticeRecord {
  if (input.record) return input.record;
  const created = Date.parse(input.runtime.creationTimestamp ?? '');
  if (Number.isFinite(created) && input.now.getTime() - created < FRESH_RUNTIME_MS)
    return { sent: 0, rollout: '', released: '', stalled: '' };
  return { sent: 0, rollout: now.rollout.signature, released: now.released.signature, stalled: now.stalled.signature };
}

/**
 * Stable for one notification (one channel moving into one state as the n-th send), so a resend
 * after a failure keeps it.
 */
function keyOf(uid: string, channel: Channel, signature: string, sequence: number): string {
  return createHash('sha256')
    .update(JSON.stringify([uid, channel, signature, sequence]))
    .digest('hex')
    .slice(0, 32);
}

function rolloutPart(r: RolloutObject, kind: NoticeKind): NonNullable<NoticeDetail['rollout']> {
  const releases = r.spec.steps.map((s) => ({
    release: s.release,
    action: s.action,
    ...(s.verdict ? { verdict: s.verdict } : {}),
    ...(s.fromVersion ? { fromVersion: s.fromVersion } : {}),
    ...(s.toVersion ? { toVersion: s.toVersion } : {}),
  }));
  return {
    name: r.metadata.name,
    type: r.spec.type,
    ...(r.spec.fromPlan ? { fromPlan: r.spec.fromPlan } : {}),
    toPlan: r.spec.toPlan,
    releases,
    ...(r.status?.currentStep === undefined ? {} : { currentStep: r.status.currentStep }),
    ...(r.status?.outcome ? { outcome: r.status.outcome } : {}),
    ...(kind === 'awaitingApproval' && r.spec.deadline ? { deadline: r.spec.deadline } : {}),
    ...(kind === 'awaitingApproval' ? { approveCommand: `kubectl aicr approve ${r.metadata.name}` } : {}),
  };
}

function detailOf(input: NoticeInput, kind: NoticeKind, key: string): NoticeDetail {
  const shown =
    kind === 'stalled'
      ? findCondition(input.runtime.conditions, CONDITION.stalled)
      : findCondition(input.runtime.conditions, CONDITION.released);
  const r = input.rollouts.at(-1);
  const guide = shown ? guideOf(shown.reason) : undefined;
  return {
    version: NOTICE_VERSION,
    key,
    kind,
    ...(input.deployment ? { deployment: input.deployment } : {}),
    cluster: input.cluster,
    runtime: { name: input.runtime.name, uid: input.runtime.uid },
    at: input.now.toISOString(),
    ...(shown
      ? { condition: { type: shown.type, status: shown.status, reason: shown.reason, message: shown.message } }
      : {}),
    ...(r && kind !== 'stalled' && kind !== 'released' ? { rollout: rolloutPart(r, kind) } : {}),
    ...(kind === 'stalled' && shown
      ? {
          stalled: {
            reason: shown.reason,
            message: shown.message,
            ...(guide ? { cause: guide.cause, fix: guide.fix } : {}),
          },
        }
      : {}),
  };
}

/** The notifications due now, and the record to keep once they are sent. */
export function dueNotices(input: NoticeInput): { readonly notices: readonly Notice[]; readonly record: NoticeRecord } {
  const now = readings(input);
  const before = startingRecord(input, now);
  const notices: Notice[] = [];
  for (const channel of CHANNELS) {
    const reading = now[channel];
    if (reading.signature === before[channel] || !reading.kind) continue;
    const key = keyOf(input.runtime.uid, channel, reading.signature, before.sent + notices.length);
    notices.push({
      kind: reading.kind,
      detailType: NOTICE_KIND[reading.kind].detailType,
      detail: detailOf(input, reading.kind, key),
    });
  }
  const record = {
    sent: before.sent + notices.length,
    rollout: now.rollout.signature,
    released: now.released.signature,
    stalled: now.stalled.signature,
  };
  return { notices, record };
}

/** Whether the record differs from the one stored: the step writes only then. */
export function recordChanged(stored: NoticeRecord | undefined, next: NoticeRecord): boolean {
  return !stored || CHANNELS.some((c) => stored[c] !== next[c]) || stored.sent !== next.sent;
}

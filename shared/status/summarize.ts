// Pure: the three kstatus conditions derived from the domain conditions, the way Flux
// summarises Ready from its sub-conditions. Only the summary writer applies these, under its
// own field manager; steps write only the domain conditions they own.
//
// Rules, in order (the first domain condition in DOMAIN_CONDITIONS order explains the runtime):
// 1. A domain condition that is not True and whose reason is of a stalled class (or is not in
//    the reasons table) stalls the runtime: Stalled=True and Ready=False with its reason and
//    message (COND-2). Reconciling stays True only when that stall retries by itself.
// 2. Otherwise a domain condition that is missing, describes an older generation (unless the
//    part of the spec it depends on has not moved since, specPart.ts), or is not True means
//    work is under way: Reconciling=True and Ready=False, with its reason and a
//    message that points at it (its own message moves with the work; a stall's is copied).
// 3. Otherwise the runtime is Ready.
import type { Condition } from '../api/condition.ts';
import { CONDITION, DOMAIN_CONDITIONS, type DomainConditionType } from '../api/constants.ts';
import type { DesiredCondition } from './conditions.ts';
import { REASON_CLASS, SUMMARY_REASON, isStalledClass, reasonRow } from '../api/reasons.ts';

export interface SummaryInput {
  readonly conditions: readonly Condition[];
  readonly generation: number;
  /** The domain conditions some step writes today; the summary waits for each of them. */
  readonly expected: readonly DomainConditionType[];
  /**
   * Conditions whose older generation does not make them stale: the spec they depend on has not
   * moved (specPart.ts).
   */
  readonly current?: readonly DomainConditionType[];
}

interface Cause {
  readonly reason: string;
  readonly message: string;
}

function stallOf(c: Condition): 'waiting' | 'retrying' | undefined {
  if (c.status === 'True') return undefined;
  const row = reasonRow(c.reason);
  if (!row) return 'waiting';
  if (!isStalledClass(row.class)) return undefined;
  return row.class === REASON_CLASS.stalledRetrying ? 'retrying' : 'waiting';
}

function progressOf(
  c: Condition | undefined,
  type: DomainConditionType,
  generation: number,
  current: boolean,
): Cause | undefined {
  if (!c) return { reason: SUMMARY_REASON.noStatusYet, message: `waiting for the first ${type} report` };
  if ((c.observedGeneration ?? 0) < generation && !current) {
    return {
      reason: SUMMARY_REASON.newGeneration,
      message: `${type} describes generation ${c.observedGeneration ?? 0}; generation ${generation} is being processed`,
    };
  }
  if (c.status === 'True') return undefined;
  // Not the condition's own message: a rollout rewrites it at every step, and a copy here would
  // cost the runtime a second status write each time.
  return { reason: c.reason, message: `${type} is ${c.status} with ${c.reason}; its message says where it stands` };
}

export function summarize(input: SummaryInput): DesiredCondition[] {
  const ordered = DOMAIN_CONDITIONS.filter((t) => input.expected.includes(t));
  const present = ordered.flatMap((t) => input.conditions.filter((c) => c.type === t));
  for (const c of present) {
    const stall = stallOf(c);
    if (stall) return stalledSummary(c, stall);
  }
  for (const type of ordered) {
    const cause = progressOf(
      input.conditions.find((c) => c.type === type),
      type,
      input.generation,
      input.current?.includes(type) ?? false,
    );
    if (cause) return reconcilingSummary(cause);
  }
  return readySummary(ordered);
}

function stalledSummary(c: Condition, stall: 'waiting' | 'retrying'): DesiredCondition[] {
  return [
    { type: CONDITION.stalled, status: 'True', reason: c.reason, message: c.message },
    { type: CONDITION.ready, status: 'False', reason: c.reason, message: c.message },
    stall === 'retrying'
      ? {
          type: CONDITION.reconciling,
          status: 'True',
          reason: c.reason,
          message: `retrying by itself until the cause is fixed: ${c.message}`,
        }
      : {
          type: CONDITION.reconciling,
          status: 'False',
          reason: c.reason,
          message: 'waiting for a person; see Stalled',
        },
  ];
}

function reconcilingSummary(cause: Cause): DesiredCondition[] {
  return [
    {
      type: CONDITION.stalled,
      status: 'False',
      reason: SUMMARY_REASON.notStalled,
      message: 'no person needs to act',
    },
    { type: CONDITION.ready, status: 'False', reason: cause.reason, message: cause.message },
    { type: CONDITION.reconciling, status: 'True', reason: cause.reason, message: cause.message },
  ];
}

function readySummary(ordered: readonly DomainConditionType[]): DesiredCondition[] {
  return [
    { type: CONDITION.stalled, status: 'False', reason: SUMMARY_REASON.notStalled, message: 'no person needs to act' },
    {
      type: CONDITION.ready,
      status: 'True',
      reason: SUMMARY_REASON.ready,
      message: `${ordered.join(', ')} ${ordered.length === 1 ? 'is' : 'are'} True`,
    },
    { type: CONDITION.reconciling, status: 'False', reason: SUMMARY_REASON.idle, message: 'nothing to do' },
  ];
}

// `kubectl aicr history`: every rollout the cluster keeps, newest first, whichever runtime made it
// (rollouts outlive their runtime, SEC-11): what moved, who approved it and when, and how it ended.
// The runtime that exists now is marked, so a record of a deleted one reads as such.
import { KINDS, RUNTIME_NAME } from '../shared/api/constants.ts';
import { byCreation, parseRollout, type RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { type Kubectl, getJson, listJson } from './kubectl.ts';
import { table } from './rolloutView.ts';

export interface HistoryRow {
  readonly name: string;
  readonly runtimeUID: string;
  /** Whether the runtime that made it exists now. */
  readonly current: boolean;
  readonly type: string;
  readonly fromPlan: string | undefined;
  readonly toPlan: string;
  readonly createdAt: string | undefined;
  readonly approvedBy: string | undefined;
  readonly approvedAt: string | undefined;
  readonly approval: string | undefined;
  readonly outcome: string | undefined;
}

function rowOf(r: RolloutObject, currentUID: string | undefined): HistoryRow {
  return {
    name: r.metadata.name,
    runtimeUID: r.spec.runtimeUID,
    current: r.spec.runtimeUID === currentUID,
    type: r.spec.type,
    fromPlan: r.spec.fromPlan,
    toPlan: r.spec.toPlan,
    createdAt: r.metadata.creationTimestamp,
    approvedBy: r.spec.approval?.approvedBy,
    approvedAt: r.spec.approval?.approvedAt,
    approval: r.status?.approval?.state,
    outcome: r.status?.outcome,
  };
}

/** The rows, newest first. */
export function historyRows(rollouts: readonly unknown[], currentUID: string | undefined): HistoryRow[] {
  return rollouts
    .map(parseRollout)
    .filter((r): r is RolloutObject => r !== undefined)
    .sort((a, b) => byCreation(b, a))
    .map((r) => rowOf(r, currentUID));
}

const short = (plan: string | undefined): string => (plan ? plan.replace(/^aicr-plan-/, '').slice(0, 12) : '-');

export function historyText(rows: readonly HistoryRow[]): string {
  if (rows.length === 0) return 'no rollouts recorded';
  const header = ['ROLLOUT', 'RUNTIME', 'TYPE', 'FROM', 'TO', 'CREATED', 'APPROVED BY', 'APPROVED AT', 'OUTCOME'];
  const lines = rows.map((r) => [
    r.name,
    `${r.runtimeUID.slice(0, 8)}${r.current ? '' : ' (deleted)'}`,
    r.type,
    short(r.fromPlan),
    short(r.toPlan),
    r.createdAt ?? '-',
    r.approvedBy ? `${r.approvedBy}${r.approval === 'Refused' ? ' (refused)' : ''}` : '-',
    r.approvedAt ?? '-',
    r.outcome ?? 'in progress',
  ]);
  return table([header, ...lines]);
}

export async function history(k: Kubectl): Promise<HistoryRow[]> {
  const [runtime, rollouts] = await Promise.all([
    getJson(k, KINDS.clusterRuntime.plural, RUNTIME_NAME),
    listJson(k, KINDS.runtimeRollout.plural),
  ]);
  const uid = (runtime?.['metadata'] as { uid?: string } | undefined)?.uid;
  return historyRows(rollouts, uid);
}

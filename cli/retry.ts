// `kubectl aicr retry ROLLOUT`: asks for a new rollout to the same target plan from the current
// state. A rollout that has not ended is ended Superseded first; one that ended Failed, Expired or
// Revoked is simply followed by the new one. Records who and when as the requesting user, then
// waits for the new rollout and prints its name; it needs approval like any other.
import { KINDS } from '../shared/api/constants.ts';
import { parseRollout, type RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { type Kubectl, listJson, whoami } from './kubectl.ts';
import { recordRequest, waitUntil } from './request.ts';

const RETRYABLE: readonly (string | undefined)[] = [undefined, 'Failed', 'Expired', 'Revoked'];

export function retryProblem(r: RolloutObject): string | undefined {
  const name = r.metadata.name;
  const outcome = r.status?.outcome;
  if (!RETRYABLE.includes(outcome))
    return (
      `rollout ${name} ended ${outcome ?? ''}, which is not retried; only a rollout that has not ended or ended ` +
      'Failed, Expired or Revoked can be. Change the target plan to roll out again'
    );
  const given = r.spec.retry;
  if (given)
    return (
      `a retry of rollout ${name} was already requested by ${given.requestedBy} at ${given.requestedAt}; ` +
      'kubectl aicr describe names the new rollout'
    );
  return undefined;
}

/** The rollout the control plane made for the retry: same runtime and target, created since the request. */
export function newRolloutOf(
  old: RolloutObject,
  requestedAt: string,
  all: readonly RolloutObject[],
): RolloutObject | undefined {
  const since = Date.parse(requestedAt);
  return all.find(
    (r) =>
      r.metadata.name !== old.metadata.name &&
      r.spec.runtimeUID === old.spec.runtimeUID &&
      r.spec.toPlan === old.spec.toPlan &&
      Date.parse(r.metadata.creationTimestamp ?? '') >= since,
  );
}

export interface Retried {
  readonly old: RolloutObject;
  readonly created: RolloutObject;
}

/** Asks for the retry and waits for the new rollout; throws Refused when refused or when none comes. */
export async function retry(k: Kubectl, name: string, timeoutMs: number): Promise<Retried> {
  const by = await whoami(k);
  const request = { requestedBy: by, requestedAt: kubeTime(new Date()) };
  const old = await recordRequest(
    k,
    name,
    { what: 'retry', doing: 'retry rollouts', problem: retryProblem, spec: { retry: request } },
    by,
  );
  const created = await waitUntil(
    timeoutMs,
    `retry of ${name} recorded, but no new rollout to ${old.spec.toPlan} was created; kubectl aicr describe shows why`,
    async () => {
      const all = (await listJson(k, KINDS.runtimeRollout.plural))
        .map(parseRollout)
        .filter((r): r is RolloutObject => r !== undefined);
      return newRolloutOf(old, request.requestedAt, all);
    },
  );
  return { old, created };
}

/** The one line a person reads. */
export function retriedText(r: Retried): string {
  const how = r.old.status?.outcome ? `after it ended ${r.old.status.outcome}` : 'which ends it Superseded';
  return (
    `rollout ${r.old.metadata.name} retried ${how}: new rollout ${r.created.metadata.name} to ` +
    `${r.created.spec.toPlan}; approve it with kubectl aicr approve ${r.created.metadata.name}`
  );
}

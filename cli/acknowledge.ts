// `kubectl aicr acknowledge ROLLOUT [RELEASE]`: a person's word that a manual release's recorded
// steps are done. Records it as the requesting user (the name the API server gives them), then
// waits until the rollout step moves the release on. Exit 0 once it has; otherwise the reason.
import type { Acknowledgement } from '../shared/api/runtimeRollout.ts';
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { kubeTime } from '../shared/status/conditions.ts';
import { Refused, readRollout } from './approve.ts';
import { type Kubectl, whoami } from './kubectl.ts';
import { recordRequest, waitUntil } from './request.ts';
import { AWAITING } from './rolloutView.ts';

type StepState = NonNullable<NonNullable<RolloutObject['status']>['steps']>[number];

export interface Acknowledged {
  readonly acknowledgement: Acknowledgement;
  /** Where the release's step is once the control plane moved it on. */
  readonly step: StepState;
}

/** "a Pending, b InProgress": every step's state, for a message that says why nothing fits. */
export function stepStates(r: RolloutObject): string {
  const state = new Map((r.status?.steps ?? []).map((s) => [s.release, s.state]));
  const all = r.spec.steps.map((s) => `${s.release} ${state.get(s.release) ?? 'Pending'}`);
  return all.length > 0 ? all.join(', ') : 'it has no steps';
}

/** The release to acknowledge, or why there is none; admission would refuse the rest later and tersely. */
export function pickRelease(r: RolloutObject, asked: string | undefined): { release: string } | { problem: string } {
  const name = r.metadata.name;
  if (r.status?.outcome)
    return { problem: `rollout ${name} has ended ${r.status.outcome}; there is nothing to acknowledge` };
  const awaiting = (r.status?.steps ?? []).filter((s) => s.state === AWAITING).map((s) => s.release);
  const release = asked ?? awaiting[0];
  if (!release) return { problem: `no step of rollout ${name} awaits acknowledgement (steps: ${stepStates(r)})` };
  if (!r.spec.steps.some((s) => s.release === release))
    return { problem: `rollout ${name} has no step for release ${release} (steps: ${stepStates(r)})` };
  const given = r.spec.acknowledgements?.find((a) => a.release === release);
  if (given)
    return {
      problem:
        `release ${release} of rollout ${name} is already acknowledged by ${given.acknowledgedBy} at ` +
        `${given.acknowledgedAt}`,
    };
  if (!awaiting.includes(release))
    return {
      problem: `release ${release} of rollout ${name} does not await acknowledgement (steps: ${stepStates(r)})`,
    };
  return { release };
}

/**
 * Records the entry through recordRequest, which writes with the resourceVersion it read: another
 * person's acknowledgement written meanwhile is never overwritten, and the release is picked again.
 */
async function recordFresh(k: Kubectl, name: string, asked: string | undefined, by: string): Promise<Acknowledgement> {
  let entry: Acknowledgement | undefined;
  const problem = (r: RolloutObject): string | undefined => {
    const picked = pickRelease(r, asked);
    return 'problem' in picked ? picked.problem : undefined;
  };
  const spec = (r: RolloutObject): Record<string, unknown> => {
    const picked = pickRelease(r, asked);
    entry = {
      release: 'release' in picked ? picked.release : '',
      acknowledgedBy: by,
      acknowledgedAt: kubeTime(new Date()),
    };
    return { acknowledgements: [...(r.spec.acknowledgements ?? []), entry] };
  };
  await recordRequest(k, name, { what: 'acknowledgement', doing: 'acknowledge releases', problem, spec }, by);
  if (!entry) throw new Refused(`acknowledgement of rollout ${name} was not written`);
  return entry;
}

function movedOn(k: Kubectl, name: string, release: string, timeoutMs: number): Promise<StepState> {
  const awaited = `acknowledgement of ${release} recorded, but the control plane has not moved it on`;
  return waitUntil(
    timeoutMs,
    awaited,
    async () => {
      const r = await readRollout(k, name);
      const step = r.status?.steps?.find((s) => s.release === release);
      if (step && step.state !== AWAITING) return step;
      if (r.status?.outcome)
        return step ?? { release, state: 'Failed', message: `rollout ${name} ended ${r.status.outcome}` };
      return undefined;
    },
    `kubectl aicr describe ${name} shows it once it does`,
  );
}

/** Acknowledges and waits; throws Refused when the write is refused or the release fails. */
export async function acknowledge(
  k: Kubectl,
  name: string,
  release: string | undefined,
  timeoutMs: number,
): Promise<Acknowledged> {
  const acknowledgement = await recordFresh(k, name, release, await whoami(k));
  const step = await movedOn(k, name, acknowledgement.release, timeoutMs);
  if (step.state === 'Failed')
    throw new Refused(
      `release ${step.release} failed after the acknowledgement: ${step.message ?? step.reason ?? 'no reason given'}`,
    );
  return { acknowledgement, step };
}

/** The one line a person reads. */
export function acknowledgedText(name: string, a: Acknowledged): string {
  const reason = a.step.reason ? ` (${a.step.reason})` : '';
  const message = a.step.message ? `: ${a.step.message}` : '';
  return (
    `rollout ${name}: ${a.acknowledgement.release} acknowledged by ${a.acknowledgement.acknowledgedBy}; ` +
    `now ${a.step.state}${reason}${message}`
  );
}

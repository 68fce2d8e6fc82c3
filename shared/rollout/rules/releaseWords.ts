// The words a release's move is told in: where it stands in its rollout. What a person does when
// it stalls is said by the reason's message (shared/status/reasonMessages.released.ts). Pure, so
// the move that uses them stays pure.
import type { Reason } from '../../api/reasons.ts';
import type { RolloutNames } from '../../status/reasonMessages.released.ts';
import { type PlanApplication, sourceChart, sourceVersion } from '../../plans/applications.ts';
import type { RolloutObject } from './rolloutObject.ts';
import { moveOf } from './released.ts';

export const OUTSIDE_WINDOW = 'OutsideMaintenanceWindow' satisfies Reason;

export interface ReleaseWords {
  readonly index: number;
  readonly rollout: string;
  readonly toPlan: string;
  /** "rollout aicr-rollout-… (a → b)". */
  readonly head: string;
  /** "step 2 of 3, Install gpu-operator". */
  readonly where: string;
}

export function wordsOf(r: RolloutObject, index: number): ReleaseWords {
  return { index, rollout: r.metadata.name, toPlan: r.spec.toPlan, head: headOf(r), where: whereOf(r, index) };
}

export const headOf = (r: RolloutObject): string => `rollout ${r.metadata.name} (${moveOf(r)})`;

/** The rollout as its reasons' messages name it. */
export const namesOf = (r: RolloutObject): RolloutNames => ({ head: headOf(r), rollout: r.metadata.name });

export function whereOf(r: RolloutObject, i: number): string {
  const step = r.spec.steps[i];
  return `step ${i + 1} of ${r.spec.steps.length}, ${step?.action ?? ''} ${step?.release ?? ''}`;
}

export function revisions(app: PlanApplication): string {
  return (app.spec.source ? [app.spec.source] : (app.spec.sources ?? []))
    .map((s) => `${sourceChart(s)} ${sourceVersion(app, s)}`)
    .join(' and ');
}

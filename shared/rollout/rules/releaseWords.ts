// The words a release's move is told in: where it stands in its rollout, and what a person does
// when it stalls. Pure, so the move that uses them stays pure.
import { NAMESPACES } from '../../api/constants.ts';
import type { Reason } from '../../api/reasons.ts';
import type { PlanApplication } from '../../plans/applications.ts';
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

export function whereOf(r: RolloutObject, i: number): string {
  const step = r.spec.steps[i];
  return `step ${i + 1} of ${r.spec.steps.length}, ${step?.action ?? ''} ${step?.release ?? ''}`;
}

export function revisions(app: PlanApplication): string {
  return (app.spec.source ? [app.spec.source] : (app.spec.sources ?? []))
    .map((s) => `${s.chart} ${s.targetRevision}`)
    .join(' and ');
}

export function chartFix(w: ReleaseWords): string {
  return (
    'Nothing was written for it. Push the pinned chart back and the rollout goes on by itself; or, to take the chart as the registry holds it now, ' +
    `delete the plan (kubectl -n ${NAMESPACES.system} delete configmap ${w.toPlan}): resolution builds it again from its bundle, copying the charts again, and a rollout to a changed plan needs a fresh approval`
  );
}

export function acknowledgeText(w: ReleaseWords, release: string): string {
  return `release ${release} is applied and healthy; it is manual, so do its recorded steps (kubectl aicr describe ${w.rollout} lists them), then run kubectl aicr acknowledge ${w.rollout}. Nothing further starts until then`;
}

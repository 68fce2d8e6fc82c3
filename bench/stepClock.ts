// Where a rollout's time goes, step by step: Argo CD's part (from an Application's new version
// appearing to Argo CD reporting it settled at that version) and the part of whoever writes the
// next one (from that report to the next Application's new version). Each run deploys its own
// chart version (rollout.ts), so a run's events are told apart by the version in the spec.
// Argo CD's part moves a lot between runs on this 2-core machine; the writer's part is what the
// control plane adds, and the plain loop of the floor shows what a watch costs at the least.
import { ANNOTATION } from '../shared/api/constants.ts';
import type { GenericObject } from '../shared/kube/kinds.ts';
import { stringAt } from '../shared/kube/fieldPath.ts';
import { reportStage } from '../shared/rollout/rules/gate.ts';
import { summarise } from './latency.ts';

export interface StepTimes {
  readonly steps: number;
  /** Argo CD's part, summed over the steps. */
  readonly argoCdMs: number;
  /** The writer's part, summed over the gaps between steps. */
  readonly reactionMs: number;
  readonly reactionP50Ms: number;
}

/**
 * The chart version an Application stands for: the annotation a source pinned by digest keeps it in
 * (SEC-9), else its single source's revision, or its first source's.
 */
function versionOf(app: GenericObject): string | undefined {
  return (
    app.metadata.annotations?.[ANNOTATION.chartVersion] ??
    stringAt(app, 'spec.source.targetRevision') ??
    stringAt(app, 'spec.sources.0.targetRevision')
  );
}

export class StepClock {
  private readonly written = new Map<string, number>();
  private readonly settled = new Map<string, number>();

  /** Takes every Application event, stamped when it arrived. */
  note(app: GenericObject, at: number): void {
    const version = versionOf(app);
    if (version === undefined) return;
    const key = `${version} ${app.metadata.name}`;
    if (!this.written.has(key)) this.written.set(key, at);
    if (!this.settled.has(key) && reportStage(app) === 'settled') this.settled.set(key, at);
  }

  /** The steps of the run that deployed `version`, in the order their Applications were written. */
  of(version: string): StepTimes {
    const steps = [...this.written]
      .filter(([key]) => key.startsWith(`${version} `))
      .map(([key, writtenAt]) => ({ writtenAt, settledAt: this.settled.get(key) }))
      .sort((a, b) => a.writtenAt - b.writtenAt);
    let argoCdMs = 0;
    const gaps: number[] = [];
    steps.forEach((s, i) => {
      if (s.settledAt === undefined) return;
      argoCdMs += s.settledAt - s.writtenAt;
      const next = steps[i + 1];
      if (next) gaps.push(Math.max(0, next.writtenAt - s.settledAt));
    });
    return {
      steps: steps.length,
      argoCdMs: Math.round(argoCdMs),
      reactionMs: Math.round(gaps.reduce((a, b) => a + b, 0)),
      reactionP50Ms: gaps.length > 0 ? summarise(gaps).p50Ms : 0,
    };
  }
}

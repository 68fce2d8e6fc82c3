// Where each step of a rollout is, as its status records it: aligned with the spec's steps, a
// step never reported is Pending. Pure, so the order rules are tested without a cluster.
import type { RuntimeRolloutStatus } from '../../api/runtimeRollout.ts';
import type { Release } from '../../plans/release.ts';
import type { RolloutObject } from './rolloutObject.ts';

export type StepState = NonNullable<RuntimeRolloutStatus['steps']>[number];

/**
 * The reason of a step recorded as started just before its write to Argo CD (write-ahead): a
 * look that finds it after a crash cannot know whether the write happened, so it writes the same
 * Application again and expects it, whether or not it exists yet.
 */
export const STEP_WRITING = 'Writing';

export function stepStates(r: RolloutObject): StepState[] {
  const recorded = new Map((r.status?.steps ?? []).map((s) => [s.release, s]));
  return r.spec.steps.map((s) => recorded.get(s.release) ?? { release: s.release, state: 'Pending' });
}

/** The first step not yet done: the one in flight, or the next to start; undefined when all are done. */
export function nextStep(states: readonly StepState[]): number | undefined {
  const i = states.findIndex((s) => s.state !== 'Succeeded');
  return i < 0 ? undefined : i;
}

/** A manual release with recorded steps waits for a person once it is applied (APR-3). */
export function needsAcknowledgement(release: Release | undefined): boolean {
  return release !== undefined && release.manual && release.steps.length > 0;
}

export function acknowledged(r: RolloutObject, release: string): boolean {
  return (r.spec.acknowledgements ?? []).some((a) => a.release === release);
}

/**
 * How long the step in flight has left before actionTimeout fails it; negative once past. The time
 * counts from the write, or from when an AppProject sync window that held its sync opened (WIN-3).
 */
export function timeLeft(state: StepState, actionTimeoutMs: number, now: Date): number {
  const started = Math.max(Date.parse(state.startedAt ?? ''), Date.parse(state.timeoutFrom ?? '') || 0);
  return Number.isNaN(started) ? actionTimeoutMs : started + actionTimeoutMs - now.getTime();
}

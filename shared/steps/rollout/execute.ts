// An approved rollout, one look at a time: the step in flight is checked against Argo CD's report
// (gate.ts), a step done lets the next one start in the same look, and each look ends with one
// status write. Nothing is written while the runtime is paused or Argo CD is unavailable (ENG-1);
// a written Application is never written again mid-step, so a hand edit is reported, not undone.
import { ClusterRuntimeSpecSchema } from '../../api/clusterRuntime.ts';
import { readConfiguration } from '../../configuration/read.ts';
import { parseDuration } from '../../durations.ts';
import { type PlanApplication, planToApplications } from '../../plans/applications.ts';
import type { Release } from '../../plans/release.ts';
import { readApplication, removeApplication, requestRefresh, writeApplication } from '../../rollouts/applicationWrites.ts';
import type { Engine } from '../../rollouts/engine.ts';
import { gate } from '../../rollouts/gate.ts';
import type { RolloutObject } from '../../rollouts/objects.ts';
import { acknowledged, needsAcknowledgement, nextStep, type StepState, stepStates, timeLeft } from '../../rollouts/progress.ts';
import { kubeTime } from '../../status/conditions.ts';
import type { StepContext, StepReport } from '../types.ts';
import { readTarget } from './create.ts';
import { type Approved, type Run, fail, hold, progress, stall } from './outcomes.ts';
import { validateThenSucceed, validationGate } from './validate.ts';

const DEFAULT_ACTION_MS = 30 * 60 * 1000;

type Next = 'next' | StepReport;

function settings(ctx: StepContext): { paused: boolean; actionTimeoutMs: number } {
  const spec = ClusterRuntimeSpecSchema.safeParse(ctx.runtime.spec);
  if (!spec.success) return { paused: false, actionTimeoutMs: DEFAULT_ACTION_MS };
  return { paused: spec.data.paused, actionTimeoutMs: parseDuration(spec.data.actionTimeout) ?? DEFAULT_ACTION_MS };
}

function set(run: Run, i: number, state: Partial<StepState>): void {
  const prev = run.states[i];
  if (prev) run.states[i] = { ...prev, ...state };
}

async function start(run: Run, i: number): Promise<Next> {
  const step = run.r.spec.steps[i];
  if (!step) return 'next';
  const now = kubeTime(run.ctx.now());
  if (step.action === 'Remove') {
    if ((await removeApplication(run.ctx.kube, step.release, run.r.metadata.name)) === 'gone') {
      set(run, i, { state: 'Succeeded', startedAt: now, finishedAt: now, reason: 'Removed', message: 'the Application was already gone' });
      return 'next';
    }
    set(run, i, { state: 'InProgress', startedAt: now, reason: 'Removing', message: "Argo CD is deleting the release's resources, then the Application" });
    return progress(run, i);
  }
  const app = run.intended.get(step.release);
  if (!app) return stall(run, i, 'StepUnknown', `step ${i + 1} names release ${step.release}, which the target plan ${run.r.spec.toPlan} lacks; nothing was written for it. Retry the rollout`);
  await writeApplication(run.ctx.kube, app);
  if (step.action === 'Upgrade' && step.fromVersion === step.toVersion && !step.valuesChanged) await requestRefresh(run.ctx.kube, step.release);
  set(run, i, { state: 'InProgress', startedAt: now, reason: 'GateNotMet', message: `written; waiting for Argo CD to report it synced and healthy at ${revisions(app)}` });
  return progress(run, i);
}

function revisions(app: PlanApplication): string {
  return (app.spec.source ? [app.spec.source] : (app.spec.sources ?? [])).map((s) => `${s.chart} ${s.targetRevision}`).join(' and ');
}

async function done(run: Run, i: number, message: string): Promise<Next> {
  const release = run.releases.get(run.states[i]?.release ?? '');
  const finishedAt = kubeTime(run.ctx.now());
  if (needsAcknowledgement(release) && !acknowledged(run.r, release?.name ?? '')) {
    set(run, i, { state: 'AwaitingAcknowledgement', reason: 'AwaitingAcknowledgement', message: `${message}; its recorded steps wait for a person`, finishedAt });
    return acknowledgeWait(run, i);
  }
  set(run, i, { state: 'Succeeded', reason: 'Done', message, finishedAt });
  return 'next';
}

async function acknowledgeWait(run: Run, i: number): Promise<Next> {
  const release = run.states[i]?.release ?? '';
  if (acknowledged(run.r, release)) {
    set(run, i, { state: 'Succeeded', reason: 'Acknowledged', message: 'its recorded steps were acknowledged' });
    return 'next';
  }
  const message = `release ${release} is applied and healthy; it is manual, so do its recorded steps (kubectl aicr describe ${run.r.metadata.name} lists them), then run kubectl aicr acknowledge ${run.r.metadata.name}. Nothing further starts until then`;
  return stall(run, i, 'AwaitingAcknowledgement', message);
}

async function check(run: Run, i: number): Promise<Next> {
  const step = run.r.spec.steps[i];
  const state = run.states[i];
  if (!step || !state) return 'next';
  if (step.action === 'Remove') {
    if ((await removeApplication(run.ctx.kube, step.release, run.r.metadata.name)) === 'gone') return done(run, i, 'removed: Argo CD deleted its resources and the Application');
    return waitOrFail(run, i, { reason: 'Removing', message: "Argo CD is still deleting the release's resources" });
  }
  const app = run.intended.get(step.release);
  if (!app) return stall(run, i, 'StepUnknown', `step ${i + 1} names release ${step.release}, which the target plan ${run.r.spec.toPlan} lacks. Retry the rollout`);
  const verdict = gate(await readApplication(run.ctx.kube, step.release), app, new Date(state.startedAt ?? 0));
  if (verdict.held) return done(run, i, `Argo CD reports it synced and healthy at ${revisions(app)}`);
  return waitOrFail(run, i, verdict);
}

async function waitOrFail(run: Run, i: number, why: { reason: string; message: string }): Promise<Next> {
  const state = run.states[i];
  if (state && timeLeft(state, run.actionTimeoutMs, run.ctx.now()) < 0) {
    set(run, i, { state: 'Failed', reason: 'ActionTimeout', message: `${why.message}; the step ran past actionTimeout`, finishedAt: kubeTime(run.ctx.now()) });
    return fail(run, i, `step ${i + 1} (${run.r.spec.steps[i]?.action} ${state.release}) did not finish within actionTimeout: ${why.message}`);
  }
  set(run, i, { reason: why.reason, message: why.message });
  return progress(run, i);
}

async function stepOnce(run: Run, i: number): Promise<Next> {
  switch (run.states[i]?.state) {
    case 'Pending':
      return start(run, i);
    case 'InProgress':
      return check(run, i);
    case 'AwaitingAcknowledgement':
      return acknowledgeWait(run, i);
    default:
      return fail(run, i, run.states[i]?.message ?? `step ${i + 1} failed`);
  }
}

/** Moves the rollout on as far as Argo CD's reports allow in one look. */
export async function execute(ctx: StepContext, r: RolloutObject, approved: Approved, engine: Engine): Promise<StepReport> {
  const { paused, actionTimeoutMs } = settings(ctx);
  const base = { ctx, r, approved, states: stepStates(r), actionTimeoutMs, intended: new Map<string, PlanApplication>(), releases: new Map<string, Release>() };
  if (paused) return hold(base, 'the runtime is paused (spec.paused): the rollout moves on once it is unpaused, and a step in flight longer than actionTimeout may then fail');
  if (!engine.available) return hold(base, `nothing is written to Argo CD while it is unavailable: ${engine.message}`);
  const [read, { argocd }] = await Promise.all([readTarget(ctx, r.spec.toPlan), readConfiguration(ctx.kube)]);
  if (!read.ok) return read.report;
  const apps = planToApplications(read.plan.releases, { runtimeUID: ctx.runtime.metadata.uid, planDigest: read.plan.digest }, { project: argocd.project, destination: argocd.destination.name ? { name: argocd.destination.name } : { server: argocd.destination.server } });
  const run: Run = { ...base, intended: new Map(apps.map((a) => [a.metadata.name, a])), releases: new Map(read.plan.releases.map((x) => [x.name, x])) };
  const gated = await validationGate(run, read.plan);
  if (gated) return gated;
  for (let i = nextStep(run.states); i !== undefined; i = nextStep(run.states)) {
    const next = await stepOnce(run, i);
    if (next !== 'next') return next;
  }
  return validateThenSucceed(run, read.plan);
}

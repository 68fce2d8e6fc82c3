// An approved rollout, one look at a time: the step in flight is checked against Argo CD's report
// (gate.ts), a step done lets the next one start in the same look, and each look ends with one
// status write. Nothing is written while the runtime is paused or Argo CD is unavailable (ENG-1);
// a written Application is never written again mid-step, so a hand edit is reported, not undone.
import { type PlanApplication, planToApplications } from '../../plans/applications.ts';
import type { Plan } from '../../plans/plan.ts';
import type { Release } from '../../plans/release.ts';
import type { Judgement } from '../rules/approval.ts';
import { readApplication, removeApplication } from '../io/applicationWrites.ts';
import { inventoryChanges } from '../rules/drift.ts';
import { gate } from '../rules/gate.ts';
import { type RolloutObject, approvedCondition } from '../rules/rolloutObject.ts';
import { STEP_WRITING, acknowledged, needsAcknowledgement, nextStep, stepStates, timeLeft } from '../rules/progress.ts';
import { kubeTime } from '../../status/conditions.ts';
import { type StepContext, concerning } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { type RolloutReport, planMissing } from '../rules/released.ts';
import {
  type Approved,
  type Next,
  type Run,
  drifted,
  fail,
  hold,
  progress,
  setStep,
  stall,
  succeed,
} from './executeEnds.ts';
import { adopt, listed, revisions, start, writeAgain } from './stepStart.ts';
import { validateThenSucceed, validationGate } from './deploymentValidation.ts';
import { OUTSIDE_WINDOW, syncHeld } from './windowCheck.ts';

const PAUSED =
  'the runtime is paused (spec.paused): the rollout moves on once it is unpaused, and a step in flight longer than actionTimeout may then fail';

/** What the rollout writes; `plan` is the target plan, absent for a removal or an adoption, which write no release. */
type Intended = Pick<Run, 'intended' | 'releases'> & { readonly plan?: Plan };

/** The target plan's Applications and releases; a removal or an adoption writes none, so it needs no plan. */
function intendedOf(look: RolloutLook, r: RolloutObject): Intended | RolloutReport {
  if (r.spec.type === 'Remove' || r.spec.type === 'Adopt') return { intended: new Map(), releases: new Map() };
  // Only the rollout to the target is ever executed, and the look read that plan.
  const read = r.spec.toPlan === look.targetPlan && look.target ? look.target : { state: 'missing' as const };
  if (read.state !== 'read') return planMissing(r.spec.toPlan, read);
  const { argocd } = look.configuration;
  const apps = planToApplications(
    read.plan.releases,
    { runtimeUID: look.runtime.metadata.uid, planDigest: read.plan.digest },
    {
      project: argocd.project,
      destination: argocd.destination.name ? { name: argocd.destination.name } : { server: argocd.destination.server },
    },
  );
  return {
    intended: new Map(apps.map((a) => [a.metadata.name, a])),
    releases: new Map(read.plan.releases.map((x) => [x.name, x])),
    plan: read.plan,
  };
}

async function done(run: Run, i: number, message: string): Promise<Next> {
  const release = run.releases.get(run.states[i]?.release ?? '');
  const finishedAt = kubeTime(run.ctx.now());
  if (needsAcknowledgement(release) && !acknowledged(run.r, release?.name ?? '')) {
    setStep(run, i, {
      state: 'AwaitingAcknowledgement',
      reason: 'AwaitingAcknowledgement',
      message: `${message}; its recorded steps wait for a person`,
      finishedAt,
    });
    return acknowledgeWait(run, i);
  }
  setStep(run, i, { state: 'Succeeded', reason: 'Done', message, finishedAt });
  return 'next';
}

async function acknowledgeWait(run: Run, i: number): Promise<Next> {
  const release = run.states[i]?.release ?? '';
  if (acknowledged(run.r, release)) {
    setStep(run, i, { state: 'Succeeded', reason: 'Acknowledged', message: 'its recorded steps were acknowledged' });
    return 'next';
  }
  const message = `release ${release} is applied and healthy; it is manual, so do its recorded steps (kubectl aicr describe ${run.r.metadata.name} lists them), then run kubectl aicr acknowledge ${run.r.metadata.name}. Nothing further starts until then`;
  return stall(run, i, 'AwaitingAcknowledgement', message);
}

async function check(run: Run, i: number): Promise<Next> {
  const step = run.r.spec.steps[i];
  const state = run.states[i];
  if (!step || !state) return 'next';
  // An adoption recorded as started, found so after a crash: its marks are moved (again; the same patch).
  if (step.action === 'Adopt') return adopt(run, i, kubeTime(run.ctx.now()));
  if (step.action === 'Remove') {
    if ((await removeApplication(run.ctx.kube, step.release, run.r.metadata.name)) === 'gone')
      return done(run, i, 'removed: Argo CD deleted its resources and the Application');
    return waitOrFail(run, i, { reason: 'Removing', message: "Argo CD is still deleting the release's resources" });
  }
  const app = run.intended.get(step.release);
  if (!app)
    return stall(
      run,
      i,
      'StepUnknown',
      `step ${i + 1} names release ${step.release}, which the target plan ${run.r.spec.toPlan} lacks. Retry the rollout`,
    );
  if (state.reason === STEP_WRITING) return writeAgain(run, i, app);
  // The look listed this Application after every earlier look's write (a step written in this look
  // ends the look), so a second GET would show the same; only one the listing lacks is read by name.
  const live = listed(run, step.release) ?? (await readApplication(run.ctx.kube, step.release));
  const verdict = gate(live, app, new Date(state.startedAt ?? 0));
  if (verdict.held) return done(run, i, `Argo CD reports it synced and healthy at ${revisions(app)}`);
  return waitOrFail(run, i, verdict);
}

async function waitOrFail(run: Run, i: number, why: { reason: string; message: string }): Promise<Next> {
  const state = run.states[i];
  const late = state !== undefined && timeLeft(state, run.actionTimeoutMs, run.ctx.now()) < 0;
  // WIN-3: a sync Argo CD's windows hold is not the step's failure; asked again while it is held.
  if (late || state?.reason === OUTSIDE_WINDOW) {
    const held = await syncHeld(run, i);
    if (held !== 'free') return held;
  }
  if (state && late) {
    setStep(run, i, {
      state: 'Failed',
      reason: 'ActionTimeout',
      message: `${why.message}; the step ran past actionTimeout`,
      finishedAt: kubeTime(run.ctx.now()),
    });
    return fail(
      run,
      i,
      `step ${i + 1} (${run.r.spec.steps[i]?.action} ${state.release}) did not finish within actionTimeout: ${why.message}`,
    );
  }
  setStep(run, i, { reason: why.reason, message: why.message });
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

/** How the rollout came to run: an approval accepted in this look or before, or every step assessed safe. */
function approvedOf(accepted: Extract<Judgement, { state: 'Accepted' }> | undefined): Approved {
  if (!accepted)
    return {
      condition: approvedCondition('True', 'AssessedSafe', 'every step was assessed safe, so no approval is needed'),
    };
  const approval = {
    state: 'Accepted' as const,
    approvedBy: accepted.approvedBy,
    approvedAt: accepted.approvedAt,
    reason: 'Approved',
    message: accepted.message,
  };
  return { condition: approvedCondition('True', 'Approved', accepted.message), approval };
}

/** Moves the rollout on as far as Argo CD's reports allow in one look. */
export async function execute(
  ctx: StepContext,
  look: RolloutLook,
  r: RolloutObject,
  accepted?: Extract<Judgement, { state: 'Accepted' }>,
): Promise<RolloutReport> {
  const { engine, settings } = look;
  const approved = approvedOf(accepted);
  const base = {
    ctx,
    look,
    r,
    approved,
    states: stepStates(r),
    actionTimeoutMs: settings.actionTimeoutMs,
    intended: new Map<string, PlanApplication>(),
    releases: new Map<string, Release>(),
  };
  if (settings.paused) return hold(base, PAUSED);
  // A suspended engine (spec.suspendEngine) shows as Argo CD unavailable, which holds as well.
  if (!engine.available) return hold(base, `nothing is written to Argo CD while it is unavailable: ${engine.message}`);
  const intended = intendedOf(look, r);
  if (!('intended' in intended)) return intended;
  const { plan } = intended;
  const known = plan ? { planDigest: plan.digest } : {};
  const run: Run = {
    ...base,
    ctx: { ...ctx, log: ctx.log.child(known) },
    intended: intended.intended,
    releases: intended.releases,
  };
  return concerning(await moveOn(run, plan), known);
}

async function moveOn(run: Run, plan: Plan | undefined): Promise<RolloutReport> {
  const { r, look } = run;
  // ROL-2: nothing is written while the Applications differ from what was approved; the check repeats every look.
  const changes = plan
    ? inventoryChanges({
        recorded: r.spec.applications,
        live: look.apps,
        steps: r.spec.steps,
        states: run.states,
        intended: run.intended,
        targetDigest: plan.digest,
      })
    : [];
  if (changes.length > 0) return drifted(run, changes);
  const gated = plan ? await validationGate(run, plan) : undefined;
  if (gated) return gated;
  for (let i = nextStep(run.states); i !== undefined; i = nextStep(run.states)) {
    const next = await stepOnce(run, i);
    if (next !== 'next') return next;
  }
  // A removal or an adoption changes no release, so there is nothing to validate.
  return plan ? validateThenSucceed(run, plan) : succeed(run);
}

// The rollout's last phase (VAL-1..5): once every step is done, AICR's deployment validation runs
// as `aicr validate` in aicr-validation against the recipe the target plan records, and only its
// passing makes the target plan active. Before the first step, a runtime that requires
// validation must have it installed and a plan with a recipe, or nothing is written at all.
import type { ValidationStatus } from '../../api/runtimeRollout.ts';
import { describeFailures, reportPassed } from '../../aicr/ctrf.ts';
import { runJob, runLimits } from '../../aicr/jobSpec.ts';
import { type StageOutcome, runStage, stageDepsOf } from '../../aicr/runStage.ts';
import { STAGE } from '../../aicr/stages.ts';
import { type ValidationRun, validationArgs, validationStage } from '../io/validationStage.ts';
import { recipeDigest } from '../io/assessmentStage.ts';
import type { Configuration } from '../../configuration/schema.ts';
import type { Plan } from '../../plans/plan.ts';
import type { Reason } from '../../api/reasons.ts';
import { validationNotInstalled, runNeeds } from '../io/validationInstalled.ts';
import {
  currentRunID,
  deploymentValidatorImage,
  pinBreach,
  stopValidators,
  unpinned,
  validatorPods,
} from '../io/validatorPins.ts';
import type { StepState } from '../rules/progress.ts';
import type { RolloutReport } from '../rules/released.ts';
import { headOf, namesOf } from '../rules/releaseWords.ts';
import { planWithoutRecipeAtStart } from '../../status/reasonMessages.noRollout.ts';
import { rolloutFailedValidation } from '../../status/reasonMessages.released.ts';
import { type Running, failWith, phase, succeed } from './lookEnds.ts';

/** How often a validation under way is looked at: its validator Pods' images are checked on each look. */
export const VALIDATION_LOOK_MS = 1_000;
/** AICR v0.11.1 cannot push evidence; describe says so beside the empty reference. */
export const NO_EVIDENCE = 'AICR v0.11.1 cannot push validation evidence, so there is no evidence reference';

const JOB_IN_MESSAGE = /Job (aicr-validation-[0-9a-f]+-[0-9]+)/;

/** Before any step: Required validation must be installed and have a recipe to run against (VAL-1). */
export async function validationGate(
  run: Running,
  states: readonly StepState[],
  plan: Plan,
): Promise<RolloutReport | undefined> {
  if (!run.look.settings.validationRequired || states.some((s) => s.startedAt !== undefined)) return undefined;
  const missing = await validationNotInstalled(run.ctx.kube, run.look.configuration);
  if (missing) return held(run, states, 'ValidationUnavailable', `${missing}. No step has started`);
  if (plan.recipe === undefined) {
    return held(run, states, 'PlanWithoutRecipe', planWithoutRecipeAtStart(plan.digest));
  }
  return undefined;
}

function held(
  run: Running,
  states: readonly StepState[],
  reason: Extract<Reason, 'ValidationUnavailable' | 'PlanWithoutRecipe'>,
  why: string,
): Promise<RolloutReport> {
  const message = `${headOf(run.r)} cannot start: ${why}`;
  const again = { extra: {}, recheckAfterMs: run.ctx.timings.engineRecheckMs };
  return phase(run, states, { state: 'waiting', reason, message }, again);
}

/** Validation under way, or unable to run now (installed, but something it needs is not there yet). */
function validating(
  run: Running,
  states: readonly StepState[],
  status: ValidationStatus,
  unavailable?: string,
): Promise<RolloutReport> {
  const reason: Reason = unavailable ? 'ValidationUnavailable' : 'Validating';
  const now = unavailable ? `cannot run now: ${unavailable}` : `runs: ${status.message ?? ''}`;
  const message = `${headOf(run.r)}: every step is done; deployment validation ${now}`;
  const shown = { state: unavailable ? ('waiting' as const) : ('progressing' as const), reason, message };
  const recheckAfterMs = unavailable ? run.ctx.timings.engineRecheckMs : VALIDATION_LOOK_MS;
  return phase(run, states, shown, { extra: { validation: status }, recheckAfterMs });
}

function failValidation(
  run: Running,
  states: readonly StepState[],
  status: ValidationStatus,
  why: string,
): Promise<RolloutReport> {
  const message = rolloutFailedValidation(namesOf(run.r), why);
  return failWith(run, states, message, { validation: { ...status, state: 'Failed', message: why } });
}

/**
 * After the last step: the target plan becomes active only once deployment validation passed, or
 * when it is Disabled.
 */
export async function validateThenSucceed(
  run: Running,
  states: readonly StepState[],
  plan: Plan,
): Promise<RolloutReport> {
  if (!run.look.settings.validationRequired) {
    const status: ValidationStatus = {
      state: 'Disabled',
      message: 'spec.validation.deployment is Disabled: this rollout has no validation evidence',
    };
    return succeed(run, states, { status, note: 'deployment validation is Disabled for it' });
  }
  // A rollout whose steps started before its plan lost its recipe: nothing to validate against.
  if (plan.recipe === undefined)
    return failValidation(
      run,
      states,
      { state: 'Failed' },
      `deployment validation did not run: the target plan ${plan.digest} has no recipe`,
    );
  const { configuration } = run.look;
  const needs = await runNeeds(run.ctx.kube, run.ctx.runtime, configuration);
  if (!needs.ok) return validating(run, states, { state: 'Running', message: needs.why }, needs.why);
  const notPinned = unpinned(deploymentValidatorImage(needs.version), configuration.aicr.validatorImages);
  if (notPinned)
    return failValidation(run, states, { state: 'Failed' }, `deployment validation did not run: ${notPinned}`);
  const outcome = await runValidation(run, plan, configuration, needs);
  return judge(run, states, outcome, configuration);
}

type Needs = Extract<Awaited<ReturnType<typeof runNeeds>>, { ok: true }>;

function runValidation(
  run: Running,
  plan: Plan,
  configuration: Configuration,
  needs: Needs,
): Promise<StageOutcome<ValidationRun>> {
  const { ctx, r } = run;
  const recipe = plan.recipe ?? '';
  const inputs = {
    runtimeUID: ctx.runtime.metadata.uid,
    rollout: r.metadata.name,
    plan: r.spec.toPlan,
    version: needs.version,
    image: needs.image,
    recipeDigest: recipeDigest(recipe),
    snapshotDigest: needs.snapshot.digest,
  };
  const base = {
    image: needs.image,
    runtimeUID: inputs.runtimeUID,
    configuration,
    ...runLimits(`${Math.round(run.actionTimeoutMs / 1000)}s`, ctx.timings),
    registryAuth: false,
  };
  const stage = validationStage(
    inputs,
    ctx.kube,
    (hash, n) => runJob({ ...base, stage: STAGE.validation, hash, run: n, args: validationArgs(hash) }),
    { recipe, snapshot: needs.snapshot.text },
  );
  return runStage(stage, stageDepsOf(ctx, 'rollout'));
}

function statusOf(
  outcome: StageOutcome<ValidationRun>,
  previous: ValidationStatus | undefined,
  runID: string | undefined,
): ValidationStatus {
  const job = JOB_IN_MESSAGE.exec('message' in outcome ? outcome.message : '')?.[1] ?? previous?.job;
  const id = runID ?? previous?.runID;
  return { state: 'Running', ...(job ? { job } : {}), ...(id ? { runID: id } : {}), evidence: '' };
}

/** A validation run that finished: its CTRF report passes the rollout or fails it. */
function judgeReport(
  run: Running,
  states: readonly StepState[],
  output: ValidationRun,
  status: ValidationStatus,
): Promise<RolloutReport> {
  const { report, reportConfigMap } = output;
  const checks = report.checks.slice(0, 64).map((c) => ({ name: c.name, status: c.status }));
  const done: ValidationStatus = { ...status, report: reportConfigMap, checks };
  if (!reportPassed(report))
    return failValidation(
      run,
      states,
      done,
      `deployment validation failed: ${describeFailures(report)} (CTRF report: ` +
        `ConfigMap aicr-validation/${reportConfigMap})`,
    );
  const passed = {
    ...done,
    state: 'Passed' as const,
    message: `${report.passed} of ${report.tests} deployment checks passed. ${NO_EVIDENCE}`,
  };
  return succeed(run, states, {
    status: passed,
    note: `deployment validation passed (${report.passed} of ${report.tests} checks)`,
  });
}

async function judge(
  run: Running,
  states: readonly StepState[],
  outcome: StageOutcome<ValidationRun>,
  configuration: Configuration,
): Promise<RolloutReport> {
  const { kube } = run.ctx;
  const status = statusOf(outcome, run.r.status?.validation, await currentRunID(kube));
  if (outcome.state === 'done') return judgeReport(run, states, outcome.output, status);
  if (outcome.state === 'stalled') {
    const lead =
      outcome.reason === 'InvalidSpec' ? 'deployment validation was refused' : 'deployment validation could not run';
    return failValidation(run, states, status, `${lead}: ${outcome.message}`);
  }
  const breach = pinBreach(await validatorPods(kube), configuration.aicr.validatorImages);
  if (breach) {
    const stopped = await stopValidators(kube);
    return failValidation(
      run,
      states,
      status,
      `deployment validation was stopped: ${breach}; its validator Jobs were deleted ` +
        `(${stopped.join(', ') || 'none left'})`,
    );
  }
  const running = outcome.message.startsWith('aicr validation is running');
  return validating(
    run,
    states,
    { ...status, message: outcome.message },
    running || outcome.state === 'retrying' ? undefined : outcome.message,
  );
}

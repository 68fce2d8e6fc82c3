// How the rollout step judges each changed release (TRN-1, JOB-8). Where the pinned AICR has
// `upgrade-check` (AICR_UPGRADE_CHECK_SINCE and later), it runs as an assessment Job keyed on the
// active and target plans' recipes, and AICR's per-component verdicts become the steps'. Where it
// has none, or a plan carries no recipe, every changed release is `unknown` and needs approval.
import { type AssessmentInputs, assessmentArgs, assessmentStage, recipeDigest } from '../io/assessmentStage.ts';
import { runJob, runLimits } from '../../aicr/jobSpec.ts';
import { type StageOutcome, runStage, stageDepsOf } from '../../aicr/runStage.ts';
import { STAGE } from '../../aicr/stages.ts';
import type { Plan } from '../../plans/plan.ts';
import type { Assessor } from '../rules/assess.ts';
import { type Verdicts, hasUpgradeCheck, judgementOf } from '../rules/verdicts.ts';
import type { StepContext, StepReport } from '../../look/contract.ts';
import type { RolloutLook } from '../io/look.ts';
import { released } from '../rules/released.ts';

export type Assessed =
  { readonly ok: true; readonly assessor: Assessor } | { readonly ok: false; readonly report: StepReport };

const unknownFor = (why: string): Assessed => ({ ok: true, assessor: () => ({ verdict: 'unknown', why }) });

async function runAssessment(
  ctx: StepContext,
  look: RolloutLook,
  version: string,
  recipes: { readonly from: string; readonly to: string },
): Promise<Assessed> {
  const { configuration } = look;
  const image = configuration.aicr.versions[version];
  if (!image)
    return unknownFor(`AICR ${version} has no pinned image, so the move cannot be assessed and needs approval`);
  const inputs: AssessmentInputs = {
    runtimeUID: ctx.runtime.metadata.uid,
    version,
    image,
    fromRecipe: recipeDigest(recipes.from),
    toRecipe: recipeDigest(recipes.to),
  };
  const base = {
    image,
    runtimeUID: inputs.runtimeUID,
    configuration,
    ...runLimits(`${Math.round(look.settings.actionTimeoutMs / 1000)}s`, ctx.timings),
    registryAuth: false,
  };
  const stage = assessmentStage(
    inputs,
    ctx.kube,
    (hash, run) => runJob({ ...base, stage: STAGE.assessment, hash, run, args: assessmentArgs(hash) }),
    recipes,
  );
  return assessedBy(await runStage(stage, stageDepsOf(ctx, 'rollout')));
}

function assessedBy(outcome: StageOutcome<Verdicts>): Assessed {
  if (outcome.state === 'done') return { ok: true, assessor: (release) => judgementOf(outcome.output, release) };
  // Any stall of the assessment is the three-run bound's: its message says how to run it again.
  if (outcome.state === 'stalled')
    return {
      ok: false,
      report: released('False', 'AICRStageStalled', `the move cannot be assessed: ${outcome.message}`),
    };
  const recheckAfterMs = outcome.state === 'retrying' ? outcome.afterMs : outcome.recheckAfterMs;
  const report = released('False', 'Assessing', `assessing the move before creating a rollout: ${outcome.message}`);
  return { ok: false, report: recheckAfterMs === undefined ? report : { ...report, recheckAfterMs } };
}

/** The assessor for the move from `from` (the active plan, if any) to `to`, or what holds it. */
export async function assessorFor(
  ctx: StepContext,
  look: RolloutLook,
  from: Plan | undefined,
  to: Plan,
): Promise<Assessed> {
  const version = look.settings.aicrVersion;
  if (!look.settings.readable || version === undefined)
    return unknownFor('the runtime spec does not read here, so the move cannot be assessed and needs approval');
  if (!hasUpgradeCheck(version))
    return unknownFor(`AICR ${version} has no upgrade-check, so the move cannot be assessed and needs approval`);
  if (!from) return unknownFor('there is no active plan to assess the move from, so it needs approval');
  if (from.recipe === undefined || to.recipe === undefined)
    return unknownFor(
      `the ${from.recipe === undefined ? 'active' : 'target'} plan carries no recipe for aicr ` +
        `upgrade-check, so the move needs approval`,
    );
  return runAssessment(ctx, look, version, { from: from.recipe, to: to.recipe });
}

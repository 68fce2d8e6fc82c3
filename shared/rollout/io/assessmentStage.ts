// The assessment stage (JOB-8, TRN-1): `aicr upgrade-check` from the active plan's recipe to
// the target plan's, keyed on those two recipes alone (not the snapshot). The recipes are
// placed as ConfigMaps beside the run; AICR writes its JSON verdicts to a third. Exit 2 with
// readable verdicts is an answer (components need attention), not a failed run.
import { createHash } from 'node:crypto';
import * as z from 'zod';

import type { Collected } from '../../aicr/runStage.ts';
import { STAGE, STAGE_NAMESPACE, assessmentOutputName, assessmentRecipeName } from '../../aicr/stages.ts';
import { reportStage } from '../../aicr/reportStage.ts';
import { COMPONENT_VERDICTS, type Verdicts } from '../rules/verdicts.ts';

/** The role labels of the recipe copies an assessment run reads. */
export const ASSESSMENT_RECIPE_ROLE = { from: 'recipe-from', to: 'recipe-to' } as const;

const ReportSchema = z.looseObject({
  components: z.array(
    z.looseObject({
      name: z.string().min(1),
      verdict: z.enum(COMPONENT_VERDICTS),
      reason: z.string().optional(),
    }),
  ),
});

/** Reads upgrade-check's JSON report: every component with its verdict and reason. */
export function parseVerdicts(text: string | undefined): Collected<Verdicts> {
  if (text === undefined || text.trim() === '')
    return { ok: false, problem: 'aicr upgrade-check wrote no JSON report' };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `aicr upgrade-check's report is not JSON: ${(err as Error).message}` };
  }
  const parsed = ReportSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const what = issue ? `${issue.path.join('.')} ${issue.message}` : 'unknown shape';
    return { ok: false, problem: `aicr upgrade-check's report does not read as verdicts: ${what}` };
  }
  const verdicts = new Map(
    parsed.data.components.map((c) => [c.name, { verdict: c.verdict, ...(c.reason ? { reason: c.reason } : {}) }]),
  );
  return { ok: true, output: verdicts };
}

export interface AssessmentInputs {
  readonly runtimeUID: string;
  readonly version: string;
  readonly image: string;
  /** sha256 of the active plan's recipe and of the target plan's. */
  readonly fromRecipe: string;
  readonly toRecipe: string;
}

/** The two recipes an assessment run compares: the active plan's and the target plan's. */
export interface AssessmentRecipes {
  readonly from: string;
  readonly to: string;
}

export function recipeDigest(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const assessmentStage = reportStage<Verdicts, Verdicts, AssessmentInputs, AssessmentRecipes>({
  stage: STAGE.assessment,
  placed: (hash, recipes) =>
    (['from', 'to'] as const).map((side) => ({
      name: assessmentRecipeName(hash, side),
      role: ASSESSMENT_RECIPE_ROLE[side],
      text: recipes[side],
    })),
  report: (hash) => ({ name: assessmentOutputName(hash), called: 'output' }),
  parse: parseVerdicts,
  output: (verdicts) => verdicts,
  // Only a report the control plane has collected (and labelled) counts.
  recordOnceCollected: true,
  collectsExits: [2],
});

export function assessmentArgs(hash: string): string[] {
  const cm = (name: string): string => `cm://${STAGE_NAMESPACE.assessment}/${name}`;
  return [
    'upgrade-check',
    '--from',
    cm(assessmentRecipeName(hash, 'from')),
    '--to',
    cm(assessmentRecipeName(hash, 'to')),
    '-t',
    'json',
    '-o',
    cm(assessmentOutputName(hash)),
  ];
}

// The validation stage (VAL-2, VAL-5): `aicr validate --phase deployment` in aicr-validation,
// against the recipe the target plan records and the snapshot discovery took, both placed as
// ConfigMaps beside the run (without -s AICR would start its own privileged snapshot agent).
// AICR writes its CTRF report to a third ConfigMap before it exits, 0 or 8: a readable report
// is the run's answer, whatever the exit; no report means the run broke (shared/aicr/verdict.ts
// tells a readiness refusal from an internal failure).
import { type ValidationReport, parseReport } from '../../aicr/ctrf.ts';
import { STAGE, STAGE_NAMESPACE, validationObjectName } from '../../aicr/stages.ts';
import { reportStage } from '../../aicr/reportStage.ts';

/**
 * Counted failures (runs that broke without a report) after which validation is not run again: the
 * first is retried once.
 */
export const VALIDATION_RUNS_BOUND = 2;

export interface ValidationInputs {
  readonly runtimeUID: string;
  /** Each rollout validates anew: a retry is a new rollout, so a new run. */
  readonly rollout: string;
  readonly plan: string;
  readonly version: string;
  readonly image: string;
  readonly recipeDigest: string;
  readonly snapshotDigest: string;
}

export interface ValidationRun {
  readonly report: ValidationReport;
  /** The ConfigMap in aicr-validation that holds the CTRF report. */
  readonly reportConfigMap: string;
}

/** The recipe the target plan records and the snapshot discovery took. */
export interface ValidationTexts {
  readonly recipe: string;
  readonly snapshot: string;
}

export const validationStage = reportStage<ValidationReport, ValidationRun, ValidationInputs, ValidationTexts>({
  stage: STAGE.validation,
  placed: (hash, texts) =>
    (['recipe', 'snapshot'] as const).map((what) => ({ name: validationObjectName(hash, what), text: texts[what] })),
  report: (hash) => ({ name: validationObjectName(hash, 'report'), called: 'report' }),
  parse: parseReport,
  output: (report, reportConfigMap) => ({ report, reportConfigMap }),
  // A readable report is the answer even while its Job winds down, and after exit 8 (checks failed).
  recordOnceCollected: false,
  failedRunsBound: VALIDATION_RUNS_BOUND,
});

/** Only the deployment phase, only in aicr-validation (VAL-5). */
export function validationArgs(hash: string): string[] {
  const cm = (what: 'recipe' | 'snapshot' | 'report'): string =>
    `cm://${STAGE_NAMESPACE.validation}/${validationObjectName(hash, what)}`;
  return [
    'validate',
    '--phase',
    'deployment',
    '-n',
    STAGE_NAMESPACE.validation,
    '-r',
    cm('recipe'),
    '-s',
    cm('snapshot'),
    '-o',
    cm('report'),
  ];
}

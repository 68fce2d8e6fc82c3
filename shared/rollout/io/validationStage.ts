// The validation stage (VAL-2, VAL-5): `aicr validate --phase deployment` in aicr-validation,
// against the recipe the target plan records and the snapshot discovery took, both placed as
// ConfigMaps beside the run (without -s AICR would start its own privileged snapshot agent).
// AICR writes its CTRF report to a third ConfigMap before it exits, 0 or 8: a readable report
// is the run's answer, whatever the exit; no report means the run broke (shared/aicr/verdict.ts
// tells a readiness refusal from an internal failure).
import type { KubePort } from '../../kube/port.ts';
import { type ValidationReport, parseReport } from '../../aicr/ctrf.ts';
import type { Collected, StageSpec } from '../../aicr/runStage.ts';
import { STAGE, STAGE_NAMESPACE, validationObjectName } from '../../aicr/stages.ts';
import { collectReport, placeInput, stageLabels } from '../../aicr/stageObjects.ts';

/** Counted failures (runs that broke without a report) after which validation is not run again: the first is retried once. */
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

const labelsFor = (hash: string): Record<string, string> => stageLabels(STAGE.validation, hash);

async function place(kube: KubePort, hash: string, what: 'recipe' | 'snapshot', text: string): Promise<void> {
  const metadata = {
    name: validationObjectName(hash, what),
    namespace: STAGE_NAMESPACE.validation,
    labels: labelsFor(hash),
  };
  await placeInput(kube, metadata, text);
}

export function validationStage(
  inputs: ValidationInputs,
  kube: KubePort,
  job: StageSpec<ValidationRun>['job'],
  texts: { readonly recipe: string; readonly snapshot: string },
): StageSpec<ValidationRun> {
  const namespace = STAGE_NAMESPACE.validation;
  const read = async (hash: string): Promise<Collected<ValidationRun>> => {
    const name = validationObjectName(hash, 'report');
    const at = { stage: STAGE.validation, hash, namespace, name, called: 'report' };
    const r = await collectReport(kube, at, parseReport);
    return r.ok ? { ok: true, output: { report: r.output, reportConfigMap: name } } : r;
  };
  return {
    stage: STAGE.validation,
    inputs,
    job,
    failedRunsBound: VALIDATION_RUNS_BOUND,
    prepare: async (hash) => {
      await Promise.all([place(kube, hash, 'recipe', texts.recipe), place(kube, hash, 'snapshot', texts.snapshot)]);
    },
    // A readable report is the answer even while its Job winds down, and after exit 8 (checks failed).
    readRecord: async (hash) => {
      const r = await read(hash);
      return r.ok ? r.output : undefined;
    },
    collect: (hash) => read(hash),
  };
}

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

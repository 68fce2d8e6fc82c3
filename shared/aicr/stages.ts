// The AICR stages the control plane runs as Jobs (snapshot by the snapshot step, recipe and render
// by resolve, assessment and validation by the rollout step), where they run, and how a run is
// named.
import { createHash } from 'node:crypto';
import { NAMESPACES } from '../api/constants.ts';

/** The data key AICR v0.11.1 writes any document under when its output is a ConfigMap. */
export const CM_OUTPUT_KEY = 'snapshot.yaml';

const STAGES = ['snapshot', 'recipe', 'render', 'assessment', 'validation'] as const;
export type Stage = (typeof STAGES)[number];
/** Each stage by its own name, so a stage is named as a property, never as a bare string. */
export const STAGE = Object.fromEntries(STAGES.map((s) => [s, s])) as { readonly [S in Stage]: S };

/** The aicr command each stage runs, as its failures name it. */
export const STAGE_COMMAND: Readonly<Record<Stage, string>> = {
  snapshot: 'snapshot',
  recipe: 'recipe',
  render: 'bundle',
  assessment: 'upgrade-check',
  validation: 'validate',
};

export const STAGE_NAMESPACE: Readonly<Record<Stage, string>> = {
  snapshot: NAMESPACES.discovery,
  recipe: NAMESPACES.jobs,
  render: NAMESPACES.jobs,
  assessment: NAMESPACES.jobs,
  validation: NAMESPACES.validation,
};

/** Objects with sorted keys, so equal inputs always hash alike. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** A stage's inputs as a short hash: the Job label and part of its name. */
export function inputHash(inputs: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(inputs)))
    .digest('hex')
    .slice(0, 16);
}

/**
 * `aicr-<stage>-<input hash>-<run number>`: a duplicate message computes the same name, so it
 * cannot start a second run.
 */
export function jobName(stage: Stage, hash: string, run: number): string {
  return `aicr-${stage}-${hash}-${run}`;
}

const RUN_NUMBER = /-([0-9]+)$/;
export function runNumberOf(name: string): number {
  return Number(RUN_NUMBER.exec(name)?.[1] ?? 0);
}

/** The ConfigMap a recipe run writes its RecipeResult to (`aicr recipe -o cm://…`). */
export function recipeOutputName(hash: string): string {
  return `aicr-recipe-${hash}`;
}

/** The ConfigMap in which the control plane records what a render run pushed. */
export function renderRecordName(hash: string): string {
  return `aicr-render-${hash}`;
}

/** The ConfigMap a snapshot run writes (in aicr-discovery) and the control plane copies it to (in aicr-system). */
export function snapshotOutputName(hash: string): string {
  return `aicr-snapshot-${hash}`;
}

/** The copy of the snapshot a recipe run reads, beside its own output in aicr-jobs. */
export function recipeSnapshotName(hash: string): string {
  return `aicr-recipe-${hash}-snapshot`;
}

/** The ConfigMap an assessment run writes its JSON verdicts to (`aicr upgrade-check -o cm://…`). */
export function assessmentOutputName(hash: string): string {
  return `aicr-assessment-${hash}`;
}

/** The copies of the two plans' recipes an assessment run compares, beside its output in aicr-jobs. */
export function assessmentRecipeName(hash: string, side: 'from' | 'to'): string {
  return `aicr-assessment-${hash}-${side}`;
}

/**
 * The ConfigMaps a validation run reads (the plan's recipe, discovery's snapshot) and writes (its
 * CTRF report), in aicr-validation.
 */
export function validationObjectName(hash: string, what: 'recipe' | 'snapshot' | 'report'): string {
  return `aicr-validation-${hash}-${what}`;
}

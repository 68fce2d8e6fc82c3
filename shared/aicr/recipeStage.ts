// The recipe stage: `aicr recipe` with the runtime's criteria, written by AICR itself to a
// ConfigMap in aicr-jobs (`-o cm://…`), which the render stage then reads the same way.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import type { ClusterRuntimeSpec } from '../api/clusterRuntime.ts';
import { LABEL } from '../api/constants.ts';
import { ownedByRuntime } from '../api/runtimeOwner.ts';
import { type ConfigMapObject, KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Collected, StageSpec } from './runStage.ts';
import { CM_OUTPUT_KEY, STAGE, STAGE_NAMESPACE, recipeOutputName, recipeSnapshotName } from './stages.ts';
import { placeInput, stageLabels } from './stageObjects.ts';

export interface Recipe {
  /** The ConfigMap in aicr-jobs that holds it, as `cm://` names it for the render stage. */
  readonly configMap: string;
  readonly digest: string;
  readonly components: readonly string[];
}

const RecipeResultSchema = z.looseObject({
  kind: z.literal('RecipeResult', { error: 'is not a RecipeResult' }),
  componentRefs: z.array(z.looseObject({ name: z.string().min(1) })).min(1, { error: 'lists no components' }),
});

export function parseRecipe(configMap: string, text: string | undefined): Collected<Recipe> {
  if (text === undefined)
    return {
      ok: false,
      problem: `its output ConfigMap ${STAGE_NAMESPACE.recipe}/${configMap} has no ${CM_OUTPUT_KEY}`,
    };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return {
      ok: false,
      problem:
        `its output ConfigMap ${STAGE_NAMESPACE.recipe}/${configMap} is not YAML: ` +
        `${(err as Error).message.split('\n')[0] ?? ''}`,
    };
  }
  const parsed = RecipeResultSchema.safeParse(doc);
  if (!parsed.success)
    return {
      ok: false,
      problem:
        `its output ConfigMap ${STAGE_NAMESPACE.recipe}/${configMap} ` +
        `${parsed.error.issues[0]?.message ?? 'is not a recipe'}`,
    };
  const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  return { ok: true, output: { configMap, digest, components: parsed.data.componentRefs.map((c) => c.name) } };
}

/** `--service eks --accelerator h100 …` for the criteria the spec states. */
export function criteriaArgs(criteria: ClusterRuntimeSpec['criteria']): string[] {
  return (['service', 'accelerator', 'intent', 'os', 'platform'] as const).flatMap((k) =>
    criteria[k] ? [`--${k}`, criteria[k]] : [],
  );
}

export interface RecipeInputs {
  /** Runs belong to one runtime: a runtime created again under the same name starts afresh. */
  readonly runtimeUID: string;
  readonly version: string;
  readonly image: string;
  readonly criteria: ClusterRuntimeSpec['criteria'];
  /** The digest of the snapshot the recipe is built from: a new snapshot is a new recipe. */
  readonly snapshot: string;
}

/** The role label of the snapshot copy a recipe run reads. */
export const RECIPE_SNAPSHOT_ROLE = 'snapshot-input';

/** Gives a recipe run its snapshot: a copy beside its output, labelled so it goes when the inputs change. */
async function placeSnapshot(kube: KubePort, hash: string, text: string, runtimeUID: string): Promise<void> {
  const metadata = {
    name: recipeSnapshotName(hash),
    namespace: STAGE_NAMESPACE.recipe,
    labels: stageLabels(STAGE.recipe, hash, RECIPE_SNAPSHOT_ROLE),
    ownerReferences: ownedByRuntime(runtimeUID),
  };
  await placeInput(kube, metadata, text);
}

/**
 * The record check and the collection look at the same ConfigMap: once it has been seen it is
 * not read again by this reader. Not yet seen, it is read again: the run may have written it since.
 */
function recipeOutputReader(kube: KubePort): (hash: string) => Promise<ConfigMapObject | undefined> {
  const seen = new Map<string, ConfigMapObject>();
  return async (hash) => {
    const cm = seen.get(hash) ?? (await kube.get(KIND.configMap, recipeOutputName(hash), STAGE_NAMESPACE.recipe));
    if (cm) seen.set(hash, cm);
    return cm;
  };
}

async function labelCollected(kube: KubePort, hash: string, runtimeUID: string): Promise<void> {
  await kube.patch(KIND.configMap, recipeOutputName(hash), STAGE_NAMESPACE.recipe, {
    metadata: {
      labels: stageLabels(STAGE.recipe, hash),
      ownerReferences: ownedByRuntime(runtimeUID),
    },
  });
}

export function recipeStage(
  inputs: RecipeInputs,
  kube: KubePort,
  job: StageSpec<Recipe>['job'],
  snapshotText: () => Promise<string>,
): StageSpec<Recipe> {
  const namespace = STAGE_NAMESPACE.recipe;
  const fetch = recipeOutputReader(kube);
  const read = async (hash: string): Promise<Collected<Recipe>> => {
    const name = recipeOutputName(hash);
    const cm = await fetch(hash);
    if (!cm) return { ok: false, problem: `its output ConfigMap ${namespace}/${name} is missing` };
    return parseRecipe(name, cm.data?.[CM_OUTPUT_KEY]);
  };
  return {
    stage: STAGE.recipe,
    inputs,
    job,
    prepare: async (hash) => placeSnapshot(kube, hash, await snapshotText(), inputs.runtimeUID),
    // Only an output the control plane has collected (and labelled) counts: AICR writes it before its Job ends.
    readRecord: async (hash) => {
      const cm = await fetch(hash);
      if (cm?.metadata.labels?.[LABEL.input] !== hash) return undefined;
      const r = parseRecipe(cm.metadata.name, cm.data?.[CM_OUTPUT_KEY]);
      return r.ok ? r.output : undefined;
    },
    collect: async (hash) => {
      const r = await read(hash);
      if (r.ok) await labelCollected(kube, hash, inputs.runtimeUID);
      return r;
    },
  };
}

export function recipeArgs(inputs: RecipeInputs, hash: string): string[] {
  // The spec's criteria are flags, which AICR lets win over what it reads from the snapshot.
  return [
    'recipe',
    '--snapshot',
    `cm://${STAGE_NAMESPACE.recipe}/${recipeSnapshotName(hash)}`,
    ...criteriaArgs(inputs.criteria),
    '-o',
    `cm://${STAGE_NAMESPACE.recipe}/${recipeOutputName(hash)}`,
  ];
}

// The render stage: `aicr bundle --deployer helm` on the recipe, pushed to the configured
// registry. The helm deployer, because v0.11.1's argocd deployer drops components' raw
// manifests and writes no recipe.yaml. AICR writes the pushed digest to the termination log;
// the control plane records the bundle reference in a ConfigMap of its own.
import { FIELD_MANAGER } from '../api/constants.ts';
import { ownedByRuntime } from '../api/runtimeOwner.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import { TERMINATION_LOG } from './jobSpec.ts';
import type { Recipe } from './recipeStage.ts';
import type { Collected, StageSpec } from './runStage.ts';
import { STAGE, STAGE_NAMESPACE, renderRecordName } from './stages.ts';
import { stageLabels } from './stageObjects.ts';

export interface Bundle {
  /** `<repository>/aicr-bundle:<input hash>@sha256:…`: pullable by digest. */
  readonly reference: string;
  /** The plan already written from it, once there is one (the record's `plan` key). */
  readonly plan?: string;
  /** The input hash of the render run: names its record. */
  readonly hash: string;
  /** The registry refused the control plane's pull of it (REG-2), and the resnapshot request it was refused under. */
  readonly refused?: { readonly message: string; readonly resnapshot: string };
}

/** The record key naming the plan built from a rendered bundle, so later reconciles need not pull it again. */
export const RECORD_PLAN_KEY = 'plan';
/** Record keys of a refused pull: its message, and the runtime's resnapshot request when it was refused. */
export const RECORD_REFUSAL_KEY = { message: 'pullRefused', resnapshot: 'pullRefusedUnder' } as const;

export interface RenderInputs {
  readonly runtimeUID: string;
  readonly version: string;
  readonly image: string;
  readonly recipe: Pick<Recipe, 'configMap' | 'digest'>;
  readonly sets: readonly string[];
  readonly repository: string;
  readonly plainHTTP: boolean;
  /** spec.workloads.selector's key=value terms, for skyhook-customizations not to evict that work; absent when none. */
  readonly workloadSelector?: readonly string[];
}

/**
 * The equality terms of a label selector, as `aicr bundle --workload-selector` takes them (key=value,
 * repeated). Its other terms (key, !key, key!=value) have no form there and are left out.
 */
export function workloadSelectorTerms(selector: string | undefined): string[] {
  return (selector ?? '')
    .split(',')
    .map((t) => /^([^!=]+)==?([^=]+)$/.exec(t.trim()))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}=${m[2]}`);
}

const DIGEST = /sha256:[a-f0-9]{64}/;

/** The repository under registry.repository that render Jobs push bundles to. */
export const BUNDLE_REPOSITORY = 'aicr-bundle';

export function bundleTarget(inputs: RenderInputs, hash: string): string {
  return `${inputs.repository}/${BUNDLE_REPOSITORY}:${hash}`;
}

export function renderArgs(inputs: RenderInputs, hash: string): string[] {
  return [
    'bundle',
    '-r',
    `cm://${STAGE_NAMESPACE.recipe}/${inputs.recipe.configMap}`,
    '--deployer',
    'helm',
    '-o',
    `oci://${bundleTarget(inputs, hash)}`,
    ...(inputs.plainHTTP ? ['--plain-http'] : []),
    '--image-refs',
    TERMINATION_LOG,
    ...(inputs.workloadSelector ?? []).flatMap((term) => ['--workload-selector', term]),
    ...inputs.sets,
  ];
}

function refusalOf(data: Record<string, string>): Pick<Bundle, 'refused'> {
  const message = data[RECORD_REFUSAL_KEY.message];
  return message ? { refused: { message, resnapshot: data[RECORD_REFUSAL_KEY.resnapshot] ?? '' } } : {};
}

async function writeRenderRecord(kube: KubePort, inputs: RenderInputs, hash: string, reference: string): Promise<void> {
  await kube.apply(
    KIND.configMap,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: renderRecordName(hash),
        namespace: STAGE_NAMESPACE.render,
        labels: stageLabels(STAGE.render, hash),
        ownerReferences: ownedByRuntime(inputs.runtimeUID),
      },
      data: { bundle: reference, recipe: inputs.recipe.configMap, recipeDigest: inputs.recipe.digest },
    },
    { fieldManager: FIELD_MANAGER.resolve, force: true },
  );
}

export function renderStage(inputs: RenderInputs, kube: KubePort, job: StageSpec<Bundle>['job']): StageSpec<Bundle> {
  const namespace = STAGE_NAMESPACE.render;
  return {
    stage: STAGE.render,
    inputs,
    job,
    collectReadsPod: true,
    readRecord: async (hash) => {
      const cm = await kube.get(KIND.configMap, renderRecordName(hash), namespace);
      const reference = cm?.data?.['bundle'];
      if (!reference || !DIGEST.test(reference)) return undefined;
      const plan = cm.data?.[RECORD_PLAN_KEY];
      return { reference, hash, ...(plan ? { plan } : {}), ...refusalOf(cm.data ?? {}) };
    },
    collect: async (hash, _job, pod): Promise<Collected<Bundle>> => {
      const message = pod?.status?.containerStatuses?.find((c) => c.name === 'aicr')?.state?.terminated?.message ?? '';
      const digest = DIGEST.exec(message)?.[0];
      if (!digest)
        return {
          ok: false,
          problem: 'it reported no pushed digest (its termination message is empty or is not a digest)',
        };
      const reference = `${bundleTarget(inputs, hash)}@${digest}`;
      await writeRenderRecord(kube, inputs, hash, reference);
      return { ok: true, output: { reference, hash } };
    },
  };
}

// The resolve step: from the runtime's spec, the configuration and the latest snapshot of the
// cluster (status.discovery, kept by the snapshot step) to a rendered bundle, by running AICR's
// recipe and render stages as Jobs. Each call looks at what the cluster holds and
// moves at most one stage on; Job and Pod changes wake it again (the forwarder watches them).
import type { ClusterRuntimeSpec } from '../../api/clusterRuntime.ts';
import { ClusterRuntimeSpecSchema } from '../../api/clusterRuntime.ts';
import { ANNOTATION, CONDITION } from '../../api/constants.ts';
import { runJob, runLimits } from '../../aicr/jobSpec.ts';
import { overrideSets } from '../../aicr/overrides.ts';
import { recipeArgs, recipeStage, type Recipe } from '../../aicr/recipeStage.ts';
import {
  renderArgs,
  renderStage,
  type Bundle,
  type RenderInputs,
  workloadSelectorTerms,
} from '../../aicr/renderStage.ts';
import { type StageDeps, type StageOutcome, runStage, stageDepsOf } from '../../aicr/runStage.ts';
import { lookConfiguration } from '../../look/configuration.ts';
import type { Configuration } from '../../configuration/schema.ts';
import type { DesiredCondition } from '../../status/conditions.ts';
import type { Reason } from '../../api/reasons.ts';
import { type StepContext, type StepReport, type StepRunner, concerning } from '../../look/contract.ts';
import { decide } from './decide.ts';
import {
  type Discovered,
  type DiscoveredSnapshot,
  SnapshotUnreadableError,
  discoveredSnapshot,
  unreadableSnapshot,
} from './discovered.ts';
import { describeProblems } from '../../api/specProblem.ts';
import { type CandidateInputs, resolveCandidate, retirePlans } from './candidate.ts';
import { planName } from '../../plans/digest.ts';
import { deploymentPrefix, registryPrefixCheck } from '../../registry/prefix.ts';
import { RegistryAccessRefused, registryAccess } from './registryAccess.ts';
import { selectTarget } from '../../plans/selection.ts';
import { statusPlan } from '../../status/statusPlans.ts';
import { aicrVersionMismatch } from '../../status/reasonMessages.resolved.ts';

function resolved(status: DesiredCondition['status'], reason: Reason, message: string): StepReport {
  return { conditions: [{ type: CONDITION.resolved, status, reason, message }] };
}

/** The image the configuration pins for the requested AICR version, or why there is none (VER-1). */
function pinnedImage(spec: ClusterRuntimeSpec, configuration: Configuration): { image: string } | { refusal: string } {
  const image = configuration.aicr.versions[spec.aicrVersion];
  if (image) return { image };
  const allowed = Object.keys(configuration.aicr.versions).sort();
  return { refusal: aicrVersionMismatch(spec.aicrVersion, allowed) };
}

/** Whether Resolved was True for this very spec: then re-running for other inputs keeps it True (JOB-9). */
function heldForThisSpec(ctx: StepContext): boolean {
  const c = ctx.runtime.status?.conditions?.find((x) => x.type === CONDITION.resolved);
  return c?.status === 'True' && c.observedGeneration === (ctx.runtime.metadata.generation ?? 0);
}

function progress(ctx: StepContext, outcome: Exclude<StageOutcome<unknown>, { state: 'done' }>): StepReport {
  if (outcome.state === 'stalled') return resolved('False', outcome.reason, outcome.message);
  const recheckAfterMs = outcome.state === 'retrying' ? outcome.afterMs : outcome.recheckAfterMs;
  const said = heldForThisSpec(ctx)
    ? resolved('True', 'Resolved', outcome.message)
    : resolved('False', 'Resolving', outcome.message);
  const report = outcome.state === 'waiting' && outcome.runId ? concerning(said, { runId: outcome.runId }) : said;
  return recheckAfterMs === undefined ? report : { ...report, recheckAfterMs };
}

/** Resolved while discovery has no usable snapshot: its failure, or a wait that keeps an earlier True. */
function notDiscovered(ctx: StepContext, d: Exclude<Discovered, { state: 'ready' }>): StepReport {
  if (d.state === 'failed') return resolved('False', d.reason, d.message);
  return heldForThisSpec(ctx) ? resolved('True', 'Resolved', d.message) : resolved('False', 'Resolving', d.message);
}

function stageDeps(ctx: StepContext): StageDeps {
  return stageDepsOf(ctx, 'resolve');
}

function unknownComponents(spec: ClusterRuntimeSpec, recipe: Recipe): string | undefined {
  const known = new Set(recipe.components);
  const unknown = Object.keys(spec.components ?? {}).filter((n) => !known.has(n));
  if (unknown.length === 0) return undefined;
  return (
    `${unknown.map((n) => `spec.components.${n}`).join(', ')}: the recipe for these criteria has no such ` +
    `component; its components are ${recipe.components.join(', ')}`
  );
}

interface JobBase {
  readonly image: string;
  readonly runtimeUID: string;
  readonly configuration: Configuration;
  readonly activeDeadlineSeconds: number;
  readonly ttlSecondsAfterFinished: number;
}

/** What the render Job is given; its hash names the bundle, so a field is set only when it has a value. */
function renderInputs(
  spec: ClusterRuntimeSpec,
  base: JobBase & { readonly recipe: Recipe; readonly sets: readonly string[] },
): RenderInputs {
  const { registry } = base.configuration;
  const protectedTerms = workloadSelectorTerms(spec.workloads?.selector);
  return {
    runtimeUID: base.runtimeUID,
    version: spec.aicrVersion,
    image: base.image,
    recipe: { configMap: base.recipe.configMap, digest: base.recipe.digest },
    sets: base.sets,
    repository: registry.repository,
    plainHTTP: registry.plainHTTP,
    ...(protectedTerms.length > 0 ? { workloadSelector: protectedTerms } : {}),
  };
}

async function render(
  ctx: StepContext,
  spec: ClusterRuntimeSpec,
  base: JobBase & { readonly recipe: Recipe; readonly sets: readonly string[]; readonly snapshot: string },
): Promise<StepReport> {
  const { registry } = base.configuration;
  const inputs = renderInputs(spec, base);
  const stage = renderStage(inputs, ctx.kube, (hash, run) =>
    runJob({ ...base, stage: 'render', hash, run, args: renderArgs(inputs, hash), registryAuth: true }),
  );
  let outcome: StageOutcome<Bundle>;
  try {
    outcome = await runStage(
      {
        ...stage,
        // The Job pushes with the Secret in aicr-jobs: it is checked only when a Job is about to be created.
        prepare: async () => {
          const access = await registryAccess(ctx, registry, 'step-and-jobs');
          if (!access.ok) throw new RegistryAccessRefused(access);
        },
      },
      stageDeps(ctx),
    );
  } catch (err) {
    if (!(err instanceof RegistryAccessRefused)) throw err;
    const { reason, message, retry } = err.failure;
    return { ...resolved('False', reason, message), ...(retry ? { backoff: true } : {}) };
  }
  if (outcome.state !== 'done') return progress(ctx, outcome);
  const resnapshot = ctx.runtime.metadata.annotations?.[ANNOTATION.resnapshot] ?? '';
  return await planPhase(ctx, {
    runtimeUID: base.runtimeUID,
    spec,
    configuration: base.configuration,
    bundle: outcome.output,
    snapshot: base.snapshot,
    overrides: base.sets,
    resnapshot,
    access: () => registryAccess(ctx, registry, 'step'),
  });
}

/** From the rendered bundle to the candidate plan, then the target spec.selection picks. */
async function planPhase(ctx: StepContext, c: CandidateInputs): Promise<StepReport> {
  const candidate = await resolveCandidate(ctx.kube, c);
  if (candidate.state === 'failed') return resolved('False', candidate.reason, candidate.message);
  // The control plane's own pull failing says so even when an earlier plan holds (REG-1, REG-3),
  // unlike an AICR run re-running for other inputs (JOB-9): the runbook keeps them apart.
  if (candidate.state === 'retrying')
    return { ...resolved('False', candidate.reason, candidate.message), backoff: true };
  const name = planName(candidate.plan.digest);
  const selection = await selectTarget(ctx.kube, c.spec, c.runtimeUID, name);
  if (!selection.ok)
    return {
      ...resolved('False', selection.reason, selection.message),
      fields: { candidatePlan: name, targetPlan: statusPlan(ctx.runtime, 'targetPlan') },
    };
  if (candidate.written)
    await retirePlans(ctx.kube, plansInUse(ctx, c.spec, [name, selection.target]), c.configuration.plans.keep);
  const target = selection.pinned
    ? `; the target is ${selection.target}, which spec.selection pins`
    : '; it is the target';
  const message =
    `plan ${name} (${candidate.plan.releases.length} releases) resolved by aicr ${c.spec.aicrVersion} from bundle ` +
    `${c.bundle.reference}${target}`;
  return {
    ...resolved('True', 'Resolved', message),
    fields: { candidatePlan: name, targetPlan: selection.target },
    log: { planDigest: candidate.plan.digest },
  };
}

/** The plans retention must keep: the new candidate and target, what status names, and a pin. */
function plansInUse(ctx: StepContext, spec: ClusterRuntimeSpec, chosen: readonly string[]): Set<string> {
  const names = [
    ...chosen,
    statusPlan(ctx.runtime, 'activePlan'),
    statusPlan(ctx.runtime, 'targetPlan'),
    spec.selection.plan,
  ];
  return new Set(names.filter((n): n is string => n !== undefined));
}

/** The recipe AICR builds for the spec's criteria from the discovered snapshot, run as a Job. */
async function recipeOf(
  ctx: StepContext,
  spec: ClusterRuntimeSpec,
  base: JobBase,
  snapshot: DiscoveredSnapshot,
): Promise<StageOutcome<Recipe>> {
  const inputs = {
    runtimeUID: base.runtimeUID,
    version: spec.aicrVersion,
    image: base.image,
    criteria: spec.criteria,
    snapshot: snapshot.digest,
  };
  return await runStage(
    recipeStage(
      inputs,
      ctx.kube,
      (hash, run) =>
        runJob({ ...base, stage: 'recipe', hash, run, args: recipeArgs(inputs, hash), registryAuth: false }),
      snapshot.text,
    ),
    stageDeps(ctx),
  );
}

export const runResolve: StepRunner = async (ctx) => {
  const early = decide(ctx.runtime);
  if (!early || early[0]?.reason === 'InvalidSpec') return early ? { conditions: early } : {};
  const spec = ClusterRuntimeSpecSchema.parse(ctx.runtime.spec);
  const configuration = await lookConfiguration(ctx);
  // Before any Job or push: outside the prefix every push and pull would be refused (REG-2).
  const prefix = registryPrefixCheck(configuration.registry, deploymentPrefix());
  if (!prefix.under) return { ...resolved('False', 'InvalidConfiguration', prefix.message), backoff: true };
  const pinned = pinnedImage(spec, configuration);
  if ('refusal' in pinned) return resolved('False', 'AICRVersionMismatch', pinned.refusal);
  const sets = overrideSets(spec.components);
  if (sets.problems.length > 0) return resolved('False', 'InvalidSpec', describeProblems(sets.problems));
  const base: JobBase = {
    image: pinned.image,
    runtimeUID: ctx.runtime.metadata.uid,
    configuration,
    ...runLimits(spec.actionTimeout, ctx.timings),
  };
  const discovered = await discoveredSnapshot(ctx.kube, ctx.runtime);
  if (discovered.state !== 'ready') return notDiscovered(ctx, discovered);
  const { snapshot } = discovered;
  const recipe = await recipeOf(ctx, spec, base, snapshot).catch((err: unknown) => {
    if (err instanceof SnapshotUnreadableError) return err;
    throw err;
  });
  if (recipe instanceof SnapshotUnreadableError) return notDiscovered(ctx, unreadableSnapshot(recipe.message));
  if (recipe.state !== 'done') return progress(ctx, recipe);
  const unknown = unknownComponents(spec, recipe.output);
  if (unknown) return resolved('False', 'InvalidSpec', unknown);
  return await render(ctx, spec, { ...base, recipe: recipe.output, sets: sets.args, snapshot: snapshot.digest });
};

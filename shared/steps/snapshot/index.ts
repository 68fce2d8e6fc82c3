// The snapshot step: reads the node groups from the Node objects and keeps a snapshot of the
// cluster taken by AICR's agent on a GPU node. It owns no condition: it writes only
// status.discovery, which the resolve step reads (and turns into Resolved). A new snapshot is
// taken when the node groups' facts, the AICR version or the resnapshot annotation change.
import { ANNOTATION, FIELD_MANAGER, LABEL, NAMESPACES } from '../../api/constants.ts';
import type { ClusterRuntimeSpec } from '../../api/clusterRuntime.ts';
import { readSpec } from '../../api/runtimeReading.ts';
import { runJob, runLimits } from '../../aicr/jobSpec.ts';
import { type Collected, type StageDeps, type StageOutcome, runStage, stageDepsOf } from '../../aicr/runStage.ts';
import { type Snapshot, readSnapshot, snapshotArgs, snapshotStage } from '../../aicr/snapshotStage.ts';
import { STAGE, inputHash } from '../../aicr/stages.ts';
import { lookConfiguration } from '../../look/configuration.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { type Discovery, type SnapshotStatus, discoveryOf } from '../../discovery/status.ts';
import {
  type NodeFacts,
  type NodeGroupReading,
  nodeGroupFingerprint,
  readNodeGroups,
} from '../../discovery/nodeGroups.ts';
import { KIND } from '../../kube/kinds.ts';
import type { StepContext, StepReport, StepRunner } from '../../look/contract.ts';
import { discoveryFailed, noGPUNodes, nodeGroupMismatch } from '../../status/reasonMessages.resolved.ts';

function stageDeps(ctx: StepContext): StageDeps {
  return stageDepsOf(ctx, 'snapshot');
}

/** Why the node groups give nothing to snapshot, if they do not. */
function nodeGroupFailure(reading: NodeGroupReading): SnapshotStatus['failure'] {
  if (reading.problems.length > 0) {
    return { reason: 'NodeGroupMismatch', message: nodeGroupMismatch(reading.problems) };
  }
  if (!reading.groups.some((g) => g.gpu)) {
    const seen = reading.groups.map((g) => g.name).join(', ') || 'none';
    return { reason: 'NoGPUNodes', message: noGPUNodes(seen) };
  }
  return undefined;
}

/** The last good snapshot, kept while a new one is under way or discovery fails. */
function kept(previous: SnapshotStatus | undefined): SnapshotStatus {
  return {
    ...(previous?.configMap ? { configMap: previous.configMap } : {}),
    ...(previous?.digest ? { digest: previous.digest } : {}),
    ...(previous?.resnapshot ? { resnapshot: previous.resnapshot } : {}),
  };
}

/**
 * What status.discovery.snapshot says after this run of the stage, keeping the last good snapshot
 * while a new one is under way.
 */
function snapshotStatus(
  outcome: StageOutcome<Snapshot>,
  previous: SnapshotStatus | undefined,
  resnapshot: string,
): SnapshotStatus {
  switch (outcome.state) {
    case 'done':
      return {
        configMap: outcome.output.configMap,
        digest: outcome.output.digest,
        ...(resnapshot ? { resnapshot } : {}),
      };
    case 'stalled':
      return {
        ...kept(previous),
        failure: { reason: 'DiscoveryFailed', message: discoveryFailed(outcome.message) },
      };
    default:
      return { ...kept(previous), waiting: outcome.message };
  }
}

/** Snapshots of earlier inputs in aicr-system: only the latest is kept. */
async function pruneSnapshots(ctx: StepContext, hash: string): Promise<void> {
  const stale = await ctx.kube.list(KIND.configMap, {
    namespace: NAMESPACES.system,
    labelSelector: `${LABEL.stage}=${STAGE.snapshot},${LABEL.input}!=${hash}`,
  });
  for (const cm of stale.items) await ctx.kube.delete(KIND.configMap, cm.metadata.name, NAMESPACES.system);
}

/** Applies status.discovery under the step's own field manager, when it changed. */
async function writeDiscovery(ctx: StepContext, discovery: Discovery): Promise<void> {
  if (inputHash(discoveryOf(ctx.runtime)) === inputHash(discovery)) return;
  // Forced and without a resourceVersion: status.discovery has no other writer (ADR 0003), it is
  // read from the nodes rather than from the runtime, and the runs of one runtime are serial on
  // its queue's message group. So the other steps' status writes while a runtime is new cannot
  // make it conflict.
  const obj = { metadata: { name: ctx.runtime.metadata.name }, status: { discovery } };
  await ctx.kube.applyStatus(KIND.clusterRuntime, obj, { fieldManager: FIELD_MANAGER.snapshot, force: true });
}

interface Pinned {
  readonly spec: ClusterRuntimeSpec;
  readonly configuration: Configuration;
  readonly image: string;
}

async function takeSnapshot(
  ctx: StepContext,
  groups: string,
  { spec, configuration, image }: Pinned,
): Promise<{ outcome: StageOutcome<Snapshot>; resnapshot: string }> {
  const resnapshot = ctx.runtime.metadata.annotations?.[ANNOTATION.resnapshot] ?? '';
  const inputs = {
    runtimeUID: ctx.runtime.metadata.uid,
    version: spec.aicrVersion,
    image,
    nodeGroups: groups,
    resnapshot,
  };
  const base = {
    image,
    runtimeUID: inputs.runtimeUID,
    configuration,
    ...runLimits(spec.actionTimeout, ctx.timings),
  };
  const stage = snapshotStage(inputs, ctx.kube, (hash, run) =>
    runJob({ ...base, stage: STAGE.snapshot, hash, run, args: snapshotArgs(hash), registryAuth: false }),
  );
  return { outcome: await runStage(stage, stageDeps(ctx)), resnapshot };
}

/** The AICR image for the runtime's version, or undefined when resolve reports why there is none. */
async function pinnedImage(ctx: StepContext): Promise<Pinned | undefined> {
  const read = readSpec(ctx.runtime.spec);
  if (!read.readable) return undefined;
  const configuration = await lookConfiguration(ctx);
  const image = configuration.aicr.versions[read.spec.aicrVersion];
  return image ? { spec: read.spec, configuration, image } : undefined;
}

/** While a published snapshot someone deleted or edited is being replaced, say so instead of keeping it. */
function replacingUnreadable(
  status: SnapshotStatus,
  outcome: StageOutcome<Snapshot>,
  unreadable: Collected<Snapshot> | undefined,
): SnapshotStatus {
  if (!unreadable || unreadable.ok || outcome.state === 'done' || outcome.state === 'stalled') return status;
  const waiting = status.waiting ?? '';
  return {
    waiting,
    failure: {
      reason: 'SnapshotUnreadable',
      message: `the latest snapshot cannot be read: ${unreadable.problem}; a fresh snapshot replaces it: ${waiting}`,
    },
  };
}

function recheckOf(outcome: StageOutcome<Snapshot>): StepReport {
  if (outcome.state === 'retrying') return { recheckAfterMs: outcome.afterMs };
  if (outcome.state === 'waiting' && outcome.recheckAfterMs !== undefined)
    return { recheckAfterMs: outcome.recheckAfterMs };
  return {};
}

export const runSnapshot: StepRunner = async (ctx) => {
  if (ctx.runtime.metadata.deletionTimestamp) return {};
  // Without a usable spec or a pinned image there is nothing to run; resolve says why.
  const pinned = await pinnedImage(ctx);
  if (!pinned) return {};
  const reading = readNodeGroups((await ctx.kube.list(KIND.node)).items as unknown as NodeFacts[]);
  const previous = discoveryOf(ctx.runtime).snapshot;
  const failure = nodeGroupFailure(reading);
  if (failure) {
    await writeDiscovery(ctx, { nodeGroups: [...reading.groups], snapshot: { ...kept(previous), failure } });
    return {};
  }
  const unreadable = previous?.configMap ? await readSnapshot(ctx.kube, previous.configMap) : undefined;
  const { outcome, resnapshot } = await takeSnapshot(ctx, nodeGroupFingerprint(reading.groups), pinned);
  const snapshot = replacingUnreadable(snapshotStatus(outcome, previous, resnapshot), outcome, unreadable);
  await writeDiscovery(ctx, { nodeGroups: [...reading.groups], snapshot });
  // Only once status names the new one: resolve may still be reading the one before.
  if (outcome.state === 'done') await pruneSnapshots(ctx, outcome.hash);
  return recheckOf(outcome);
};

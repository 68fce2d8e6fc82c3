// The snapshot stage: AICR's agent, run by the control plane itself in aicr-discovery on a GPU
// node, measures the cluster and writes a Snapshot to a ConfigMap there (`-o cm://…`). The
// control plane checks it and copies it to aicr-system, where the latest one is kept and named
// in status.discovery.snapshot.configMap; the agent's own copy is then removed.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { ANNOTATION, LABEL, NAMESPACES } from '../api/constants.ts';
import { ownedByRuntime } from '../api/runtimeOwner.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import { ConflictError } from '../errors.ts';
import { CM_OUTPUT_KEY } from './stages.ts';
import type { Collected, StageSpec } from './runStage.ts';
import { STAGE, STAGE_NAMESPACE, snapshotOutputName } from './stages.ts';
import { stageLabels } from './stageObjects.ts';

/** The Snapshot schema v0.11.1 writes; a snapshot of any other is not read (a newer AICR's, say). */
export const SNAPSHOT_API_VERSION = 'aicr.nvidia.com/v1alpha1';

export interface Snapshot {
  /** The ConfigMap in aicr-system that holds it. */
  readonly configMap: string;
  readonly digest: string;
  /** The document as AICR wrote it: what a recipe run is given. */
  readonly text: string;
  readonly serverVersion: string | undefined;
  readonly gpuModel: string | undefined;
}

const MeasurementSchema = z.looseObject({
  type: z.string(),
  subtypes: z
    .array(z.looseObject({ subtype: z.string(), data: z.record(z.string(), z.unknown()).optional() }))
    .optional(),
});
const SnapshotSchema = z.looseObject({
  kind: z.literal('Snapshot', { error: 'is not an AICR Snapshot' }),
  apiVersion: z.string(),
  measurements: z.array(MeasurementSchema).min(1, { error: 'has no measurements' }),
});

function reading(
  measurements: z.output<typeof MeasurementSchema>[],
  type: string,
  subtype: string,
  key: string,
): string | undefined {
  const value = measurements.find((m) => m.type === type)?.subtypes?.find((s) => s.subtype === subtype)?.data?.[key];
  return value === undefined ? undefined : String(value);
}

/** A snapshot document read from `where`, or what is wrong with it, in words that name where. */
export function parseSnapshot(where: string, configMap: string, text: string | undefined): Collected<Snapshot> {
  if (text === undefined || text.trim() === '')
    return { ok: false, problem: `ConfigMap ${where} has no ${CM_OUTPUT_KEY}` };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return { ok: false, problem: `ConfigMap ${where} is not YAML: ${(err as Error).message.split('\n')[0] ?? ''}` };
  }
  const parsed = SnapshotSchema.safeParse(doc);
  if (!parsed.success)
    return { ok: false, problem: `ConfigMap ${where} ${parsed.error.issues[0]?.message ?? 'is not a snapshot'}` };
  if (parsed.data.apiVersion !== SNAPSHOT_API_VERSION) {
    return {
      ok: false,
      problem:
        `ConfigMap ${where} holds a snapshot of schema ${parsed.data.apiVersion}, which this ` +
        `control plane cannot read (it reads ${SNAPSHOT_API_VERSION}); set spec.aicrVersion to an ` +
        `AICR version whose snapshots it reads`,
    };
  }
  const m = parsed.data.measurements;
  const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  return {
    ok: true,
    output: {
      configMap,
      digest,
      text,
      serverVersion: reading(m, 'K8s', 'server', 'version'),
      gpuModel: reading(m, 'GPU', 'smi', 'gpu.model'),
    },
  };
}

/** Reads the snapshot ConfigMap `name` in aicr-system. */
export async function readSnapshot(kube: KubePort, name: string): Promise<Collected<Snapshot>> {
  const where = `${NAMESPACES.system}/${name}`;
  const cm = await kube.get(KIND.configMap, name, NAMESPACES.system);
  if (!cm) return { ok: false, problem: `ConfigMap ${where} is missing` };
  return parseSnapshot(where, name, cm.data?.[CM_OUTPUT_KEY]);
}

export interface SnapshotInputs {
  readonly runtimeUID: string;
  readonly version: string;
  readonly image: string;
  /** The node groups' facts: a group appearing, going or changing GPUs makes a new snapshot. */
  readonly nodeGroups: string;
  /** The runtime's operator.aicr.run/resnapshot value: each new one makes a new snapshot. */
  readonly resnapshot: string;
}

/** Publishes a checked snapshot in aicr-system, replacing whatever holds that name (a corrupted copy, say). */
async function publish(kube: KubePort, hash: string, text: string, runtimeUID: string): Promise<void> {
  const name = snapshotOutputName(hash);
  // The runtime's UID lets the forwarder wake discovery when someone edits or deletes it.
  const metadata = {
    name,
    namespace: NAMESPACES.system,
    labels: stageLabels(STAGE.snapshot, hash),
    annotations: { [ANNOTATION.runtimeUID]: runtimeUID },
    ownerReferences: ownedByRuntime(runtimeUID),
  };
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { [CM_OUTPUT_KEY]: text } };
  try {
    await kube.create(KIND.configMap, body);
  } catch (err) {
    // The name is taken only by a copy that was not accepted as a record; replace it.
    if (!(err instanceof ConflictError)) throw err;
    await kube.delete(KIND.configMap, name, NAMESPACES.system);
    await kube.create(KIND.configMap, body);
  }
}

export function snapshotStage(
  inputs: SnapshotInputs,
  kube: KubePort,
  job: StageSpec<Snapshot>['job'],
): StageSpec<Snapshot> {
  const namespace = STAGE_NAMESPACE.snapshot;
  return {
    stage: STAGE.snapshot,
    inputs,
    job,
    // Only a copy the control plane published and labelled counts; a corrupted one makes a fresh run.
    readRecord: async (hash) => {
      const cm = await kube.get(KIND.configMap, snapshotOutputName(hash), NAMESPACES.system);
      if (cm?.metadata.labels?.[LABEL.input] !== hash) return undefined;
      const r = parseSnapshot(`${NAMESPACES.system}/${cm.metadata.name}`, cm.metadata.name, cm.data?.[CM_OUTPUT_KEY]);
      return r.ok ? r.output : undefined;
    },
    collect: async (hash) => {
      const name = snapshotOutputName(hash);
      const cm = await kube.get(KIND.configMap, name, namespace);
      if (!cm) return { ok: false, problem: `its output ConfigMap ${namespace}/${name} is missing` };
      const r = parseSnapshot(`${namespace}/${name}`, name, cm.data?.[CM_OUTPUT_KEY]);
      if (!r.ok) return r;
      await publish(kube, hash, r.output.text, inputs.runtimeUID);
      await kube.delete(KIND.configMap, name, namespace);
      return r;
    },
  };
}

export function snapshotArgs(hash: string): string[] {
  return ['snapshot', '-o', `cm://${STAGE_NAMESPACE.snapshot}/${snapshotOutputName(hash)}`];
}

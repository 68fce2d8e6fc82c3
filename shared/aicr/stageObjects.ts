// The ConfigMaps around an AICR run: the inputs placed beside it and the report it writes. Every
// one carries the run's stage and input hash, so it goes with the run's other objects when the
// inputs change.
import { LABEL, MANAGED_BY_VALUE } from '../api/constants.ts';
import { ConflictError } from '../errors.ts';
import { type ConfigMapObject, KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Collected } from './runStage.ts';
import { CM_OUTPUT_KEY, type Stage } from './stages.ts';

/** The labels of a run's objects; a role tells an input from the output where both are ConfigMaps. */
export function stageLabels(stage: Stage, hash: string, role?: string): Record<string, string> {
  return {
    [LABEL.stage]: stage,
    [LABEL.input]: hash,
    ...(role ? { [LABEL.role]: role } : {}),
    [LABEL.managedBy]: MANAGED_BY_VALUE,
  };
}

export interface PlacedInput {
  readonly [k: string]: unknown;
  readonly name: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
}

/** Places an input beside its run; one placed already (an earlier run, a duplicate message) holds the same text. */
export async function placeInput(kube: KubePort, metadata: PlacedInput, text: string): Promise<void> {
  try {
    await kube.create(KIND.configMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata,
      data: { [CM_OUTPUT_KEY]: text },
    });
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
  }
}

const looksJson = (v: string | undefined): v is string => v !== undefined && v.trimStart().startsWith('{');

/** A JSON report in whichever data key AICR wrote it under (v0.11.1 writes snapshot.json). */
export function reportText(cm: ConfigMapObject | undefined): string | undefined {
  const data = cm?.data ?? {};
  return [data[CM_OUTPUT_KEY], data['report.json'], ...Object.values(data)].find(looksJson);
}

export interface ReportPlace {
  readonly stage: Stage;
  readonly hash: string;
  readonly namespace: string;
  readonly name: string;
  /** What the ConfigMap is called in a problem: "output", "report". */
  readonly called: string;
}

/**
 * A run's JSON report, parsed. AICR writes it unlabelled; once it reads, it is labelled as the
 * run's, so it goes with the run's other objects when the inputs change.
 */
export async function collectReport<T>(
  kube: KubePort,
  at: ReportPlace,
  parse: (text: string | undefined) => Collected<T>,
): Promise<Collected<T>> {
  const cm = await kube.get(KIND.configMap, at.name, at.namespace);
  if (!cm) return { ok: false, problem: `its ${at.called} ConfigMap ${at.namespace}/${at.name} is missing` };
  const read = parse(reportText(cm));
  if (read.ok && cm.metadata.labels?.[LABEL.input] !== at.hash)
    await kube.patch(KIND.configMap, at.name, at.namespace, { metadata: { labels: stageLabels(at.stage, at.hash) } });
  return read;
}

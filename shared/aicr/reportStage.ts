// A stage whose run reads ConfigMaps placed beside it and writes a JSON report to another: AICR's
// upgrade assessment and its deployment validation. What differs between them is where things
// are, how the report reads, and whether a report the control plane has not yet collected counts.
import { LABEL } from '../api/constants.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Collected, StageSpec } from './runStage.ts';
import { type PlacedInput, collectReport, placeInput, reportText } from './stageObjects.ts';
import { STAGE_NAMESPACE, type Stage } from './stages.ts';

export interface ReportStage<Report, Out> {
  readonly stage: Stage;
  readonly inputs: unknown;
  readonly job: StageSpec<Out>['job'];
  /** The ConfigMaps a run of `hash` reads, with their text. */
  readonly placed: (hash: string) => readonly { readonly metadata: PlacedInput; readonly text: string }[];
  /** The report's ConfigMap, and what it is called in a problem. */
  readonly report: (hash: string) => { readonly name: string; readonly called: string };
  readonly parse: (text: string | undefined) => Collected<Report>;
  readonly output: (report: Report, configMap: string) => Out;
  /** Only a report the control plane collected (and labelled) is an earlier run's record. */
  readonly recordOnceCollected: boolean;
}

export function reportStage<Report, Out>(
  kube: KubePort,
  d: ReportStage<Report, Out>,
  more: Pick<StageSpec<Out>, 'collectsExits' | 'failedRunsBound'> = {},
): StageSpec<Out> {
  const namespace = STAGE_NAMESPACE[d.stage];
  const collect = async (hash: string): Promise<Collected<Out>> => {
    const { name, called } = d.report(hash);
    const read = await collectReport(kube, { stage: d.stage, hash, namespace, name, called }, d.parse);
    return read.ok ? { ok: true, output: d.output(read.output, name) } : read;
  };
  const collected = async (hash: string): Promise<Out | undefined> => {
    const { name } = d.report(hash);
    const cm = await kube.get(KIND.configMap, name, namespace);
    if (cm?.metadata.labels?.[LABEL.input] !== hash) return undefined;
    const read = d.parse(reportText(cm));
    return read.ok ? d.output(read.output, name) : undefined;
  };
  return {
    stage: d.stage,
    inputs: d.inputs,
    job: d.job,
    ...more,
    prepare: async (hash) => {
      await Promise.all(d.placed(hash).map((p) => placeInput(kube, p.metadata, p.text)));
    },
    readRecord: d.recordOnceCollected
      ? collected
      : async (hash) => {
          const read = await collect(hash);
          return read.ok ? read.output : undefined;
        },
    collect,
  };
}

// A stage whose run reads ConfigMaps placed beside it and writes a JSON report to another: AICR's
// upgrade assessment and its deployment validation. What differs between them is where things
// are, how the report reads, and whether a report the control plane has not yet collected counts;
// a stage is declared once and then built for each run's inputs and texts.
import { LABEL } from '../api/constants.ts';
import { KIND } from '../kube/kinds.ts';
import type { KubePort } from '../kube/port.ts';
import type { Collected, StageSpec } from './runStage.ts';
import { collectReport, placeInput, reportText, stageLabels } from './stageObjects.ts';
import { STAGE_NAMESPACE, type Stage } from './stages.ts';

/** One ConfigMap a run reads: its name, its role label if any, and its text. */
export interface PlacedText {
  readonly name: string;
  readonly role?: string;
  readonly text: string;
}

export interface ReportStage<Report, Out, Texts> extends Pick<StageSpec<Out>, 'collectsExits' | 'failedRunsBound'> {
  readonly stage: Stage;
  /** The ConfigMaps a run of `hash` reads. */
  readonly placed: (hash: string, texts: Texts) => readonly PlacedText[];
  /** The report's ConfigMap, and what it is called in a problem. */
  readonly report: (hash: string) => { readonly name: string; readonly called: string };
  readonly parse: (text: string | undefined) => Collected<Report>;
  readonly output: (report: Report, configMap: string) => Out;
  /** Only a report the control plane collected (and labelled) is an earlier run's record. */
  readonly recordOnceCollected: boolean;
}

export type ReportStageBuilder<Out, Inputs, Texts> = (
  inputs: Inputs,
  kube: KubePort,
  job: StageSpec<Out>['job'],
  texts: Texts,
) => StageSpec<Out>;

/** Reading a run's report: `collect` once the run is over, `collected` for a report already labelled as read. */
function reportReaders<Report, Out, Texts>(d: ReportStage<Report, Out, Texts>, kube: KubePort) {
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
  return { collect, collected };
}

export function reportStage<Report, Out, Inputs, Texts>(
  d: ReportStage<Report, Out, Texts>,
): ReportStageBuilder<Out, Inputs, Texts> {
  const namespace = STAGE_NAMESPACE[d.stage];
  return (inputs, kube, job, texts) => {
    const { collect, collected } = reportReaders(d, kube);
    return {
      stage: d.stage,
      inputs,
      job,
      ...(d.collectsExits ? { collectsExits: d.collectsExits } : {}),
      ...(d.failedRunsBound !== undefined ? { failedRunsBound: d.failedRunsBound } : {}),
      prepare: async (hash) => {
        await Promise.all(
          d
            .placed(hash, texts)
            .map((p) =>
              placeInput(kube, { name: p.name, namespace, labels: stageLabels(d.stage, hash, p.role) }, p.text),
            ),
        );
      },
      readRecord: d.recordOnceCollected
        ? collected
        : async (hash) => {
            const read = await collect(hash);
            return read.ok ? read.output : undefined;
          },
      collect,
    };
  };
}

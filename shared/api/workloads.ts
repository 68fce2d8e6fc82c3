// spec.workloads: the GPU work a rollout waits for (GPU-1, GPU-2). Upgrading the GPU driver,
// operator or network stack restarts node software and ends the jobs on those Nodes, so before a
// step of such a release the rollout waits while protected Pods run on GPU Nodes. The control
// plane never evicts anything; past maxWait a person decides.
import * as z from 'zod';
import { apiObject, boundedString, described, durationString, patternString } from './fields.ts';
import { COMPONENT_NAME } from './names.ts';

/** AICR components whose rollout restarts software on GPU Nodes, whatever the person adds. */
export const DISRUPTIVE_COMPONENTS = [
  'gpu-operator',
  'network-operator',
  'nvidia-dra-driver-gpu',
  'skyhook-customizations',
] as const;

/** The label AICR and NVIDIA's feature discovery put on Nodes with GPUs. */
export const GPU_NODE_SELECTOR = 'nvidia.com/gpu.present=true';

const LABEL_TERM = '!?[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?((=|==|!=)([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)?)?';
const SELECTOR = {
  pattern: new RegExp(`^${LABEL_TERM}(,${LABEL_TERM})*$`),
  maxLength: 1024,
  message:
    'must be a label selector of comma-separated terms such as team=ml,aicr.run/protected or tier!=batch ' +
    '(equality terms; set terms are not taken)',
};

const MAX_CLASSES = 16;
const MAX_RELEASES = 64;

export const WorkloadsSchema = apiObject(
  z.object({
    selector: patternString(
      SELECTOR,
      'Pods that count as protected work, as a label selector (team=ml,aicr.run/protected). ' +
        'AICR bundles get the same selector as --workload-selector.',
    ).optional(),
    priorityClasses: described(
      z.array(boundedString(253, 'A PriorityClass name.')).max(MAX_CLASSES),
      `Pods running at one of these PriorityClasses count as protected work too; at most ${MAX_CLASSES}.`,
    ).optional(),
    disruptiveReleases: described(
      z.array(patternString(COMPONENT_NAME, 'A release name.')).max(MAX_RELEASES),
      `Releases that disrupt GPU Nodes besides ${DISRUPTIVE_COMPONENTS.join(', ')}; at most ${MAX_RELEASES}.`,
    ).optional(),
    maxWait: durationString(
      { min: '1m', max: '720h', maxInWords: '30 days' },
      'Longest a step waits for protected work to end before the runtime is Stalled (WorkloadsStillRunning) for ' +
        'a person to decide; 1m to 720h.',
    ).default('24h'),
  }),
).meta({
  description:
    'The GPU work rollouts wait for: before a step of a release that disrupts GPU Nodes, ' +
    'the rollout waits while protected Pods run on Nodes labelled nvidia.com/gpu.present=true. ' +
    'Nothing is protected unless selector or priorityClasses is set.',
});
export type Workloads = z.output<typeof WorkloadsSchema>;

// The Jobs and Pods of the runs the control plane starts (AICR's recipe and render, the upgrade
// assessment, the snapshot agent), each watched in the namespace and stage it runs in.
import { LABEL, NAMESPACES } from '../api/constants.ts';
import { isFinished, jobEnd } from '../aicr/runJobs.ts';
import { STAGE } from '../aicr/stages.ts';
import { type JobObject, KIND, type PodObject } from '../kube/kinds.ts';
import type { Selection } from '../kube/port.ts';
import { WAKE, type Wake } from '../steps/table.ts';
import { type WatchedKind, runtimeFromAnnotation } from './watchedKind.ts';

// Resolution's runs and the rollout's assessment share a namespace; a selector on the stage
// keeps each step from waking on the other's Jobs.
const AICR_RUNS = { namespace: NAMESPACES.jobs, labelSelector: `${LABEL.stage} in (${STAGE.recipe},${STAGE.render})` };
const ASSESSMENT_RUNS = { namespace: NAMESPACES.jobs, labelSelector: `${LABEL.stage}=${STAGE.assessment}` };
const SNAPSHOT_RUNS = { namespace: NAMESPACES.discovery, labelSelector: LABEL.stage };

/** The fingerprint of a Pod that nothing holds up. */
const QUIET_POD = JSON.stringify([[], []]);

/** Waits every Pod passes through on its way to running: no news. */
const ON_ITS_WAY: readonly string[] = ['ContainerCreating', 'PodInitializing'];

// Only what a wait message is made of: a refusal to schedule or a failed pull. How a run ended
// is the Job's to say.
const podProgress = (pod: PodObject): string =>
  JSON.stringify([
    (pod.status?.conditions ?? [])
      .filter((c) => c.type === 'PodScheduled' && c.status === 'False')
      .map((c) => c.message ?? ''),
    (pod.status?.containerStatuses ?? [])
      .map((c) => c.state?.waiting?.reason ?? '')
      .filter((reason) => reason !== '' && !ON_ITS_WAY.includes(reason)),
  ]);

/** What a run's Job and Pod watches share: the run they belong to, and no coalescing. */
function runWatchBase(wake: Wake, selection: Selection, id: string | undefined) {
  return { ...(id ? { id } : {}), wake, selection, runtimeOf: runtimeFromAnnotation, coalesceMs: 0 } as const;
}

/**
 * An AICR run's Job, in the namespace of its stage. A Job just created, or a successful one the
 * step deleted after reading it, is no news; a failed one deleted by a person lets its stage
 * run again (JOB-6). AICR's Jobs change a few times per run and each change is the control
 * plane's cue to act, so none is held back by coalescing.
 */
function runJobWatch(wake: Wake, selection: Selection, id?: string): WatchedKind<JobObject> {
  return {
    ...runWatchBase(wake, selection, id),
    kind: KIND.job,
    arrivalIsNews: (job) => jobEnd(job) !== undefined,
    deletionIsNews: (job) => !isFinished(job, 'Complete'),
    // Whether and how the run ended, once however many ways the Job says it; the control
    // plane's own annotations and TTL changes are not news.
    fingerprint: (job) => JSON.stringify([jobEnd(job) ?? null, job.metadata.deletionTimestamp ?? null]),
  };
}

/** An AICR run's Pod: news only when it is held up; it goes with its Job, which is watched itself. */
function runPodWatch(wake: Wake, selection: Selection, id?: string): WatchedKind<PodObject> {
  return {
    ...runWatchBase(wake, selection, id),
    kind: KIND.pod,
    deletionIsNews: () => false,
    arrivalIsNews: (pod) => podProgress(pod) !== QUIET_POD,
    fingerprint: podProgress,
  };
}

export const AICR_JOB_WATCH = runJobWatch(WAKE.aicrRun, AICR_RUNS);
export const AICR_POD_WATCH = runPodWatch(WAKE.aicrRun, AICR_RUNS);

/** The upgrade assessment's Jobs and Pods, in aicr-jobs too: they wake the rollout step. */
export const ASSESSMENT_JOB_WATCH = runJobWatch(WAKE.assessmentRun, ASSESSMENT_RUNS, 'assessment-jobs');
export const ASSESSMENT_POD_WATCH = runPodWatch(WAKE.assessmentRun, ASSESSMENT_RUNS, 'assessment-pods');

/** The snapshot agent's Jobs and Pods, in aicr-discovery: they wake the snapshot step. */
export const SNAPSHOT_JOB_WATCH = runJobWatch(WAKE.snapshotRun, SNAPSHOT_RUNS, 'snapshot-jobs');
export const SNAPSHOT_POD_WATCH = runPodWatch(WAKE.snapshotRun, SNAPSHOT_RUNS, 'snapshot-pods');

/** Every run's watches, in the order the forwarder lists them. */
export const RUN_WATCHES = [
  AICR_JOB_WATCH,
  AICR_POD_WATCH,
  ASSESSMENT_JOB_WATCH,
  ASSESSMENT_POD_WATCH,
  SNAPSHOT_JOB_WATCH,
  SNAPSHOT_POD_WATCH,
] as const;

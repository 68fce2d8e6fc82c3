// The ClusterRuntime itself, watched four ways: its spec, annotations and deletion (every step
// it concerns), what discovery reports (resolve), what resolution decides (the rollout step and
// the drift check), and what may be worth telling (notify). Each watch has its own fingerprint,
// so the control plane's own status writes wake only the steps that act on them.
import { CONDITION, STEP } from '../api/constants.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import { WAKE } from '../steps/table.ts';
import { discoveryOf } from '../discovery/status.ts';
import { specPartDigest } from '../status/specPart.ts';
import { statusPlan } from '../status/statusPlans.ts';
import { SPEC_FIELDS } from '../api/clusterRuntime.ts';
import type { WatchedKind } from './watchedKind.ts';
import type { Reason } from '../api/reasons.ts';

const NO_TARGET_YET: Reason = 'AwaitingPlan';

/**
 * A runtime gone from the API leaves no step anything to do: its finalizers ran while it was
 * deleting (news as a change), and a successor of the same name arrives as news of its own. A
 * step woken for it would read the runtime only to find it gone.
 */
const runtimeGoneIsNoNews = (): boolean => false;

/**
 * What every watch of the runtime shares: the kind, the runtime an event concerns (itself), and
 * that its going is no news.
 */
const OF_THE_RUNTIME = {
  kind: KIND.clusterRuntime,
  runtimeOf: (obj: RuntimeObject) => ({ name: obj.metadata.name, uid: obj.metadata.uid }),
  deletionIsNews: runtimeGoneIsNoNews,
} as const;

export const RUNTIME_WATCH: WatchedKind<RuntimeObject> = {
  wake: WAKE.runtimeChange,
  ...OF_THE_RUNTIME,
  // Its spec (generation), annotations and deletion; status writes, the control plane's own, are not work.
  fingerprint: (obj) =>
    JSON.stringify([
      obj.metadata.generation ?? 0,
      obj.metadata.annotations ?? {},
      obj.metadata.deletionTimestamp ?? null,
    ]),
  // A step that depends on part of the spec only (its row's specFields) is not woken by a change
  // elsewhere in it; its conditions stay current meanwhile (shared/status/specPart.ts).
  answering: (obj) => ({ asked: obj.metadata.generation ?? 0, answered: obj.status?.observedGeneration }),
  // A deletion starting wakes only the step that acts on it (its row's actsOnDeletion).
  stepPrint: (obj, step) =>
    JSON.stringify([
      specPartDigest(obj.spec, step.specFields ?? SPEC_FIELDS),
      obj.metadata.annotations ?? {},
      step.actsOnDeletion ? (obj.metadata.deletionTimestamp ?? null) : null,
    ]),
};

/**
 * The runtime again, for what discovery reports (a new snapshot, a failure, what it waits for):
 * resolve acts on it. Its own watch, so the snapshot step's writes wake resolve alone, not every
 * step a spec change wakes (the snapshot step itself among them).
 */
export const RUNTIME_DISCOVERY_WATCH: WatchedKind<RuntimeObject> = {
  id: 'runtime-discovery',
  wake: WAKE.discoveryChange,
  ...OF_THE_RUNTIME,
  // A new runtime is the spec watch's news.
  arrivalIsNews: () => false,
  fingerprint: (obj) => {
    const s = discoveryOf(obj).snapshot;
    return JSON.stringify([s?.configMap ?? '', s?.digest ?? '', s?.failure?.reason ?? '', s?.waiting ?? '']);
  },
};

/** The target plan status names, and whether Resolved is True: what the rollout step reads of resolution. */
function resolution(obj: RuntimeObject): { readonly target: string; readonly settled: boolean } {
  const status = (obj.status ?? {}) as {
    targetPlan?: unknown;
    conditions?: readonly { type: string; status: string }[];
  };
  const resolved = status.conditions?.find((c) => c.type === CONDITION.resolved);
  return {
    target: typeof status.targetPlan === 'string' ? status.targetPlan : '',
    settled: resolved?.status === 'True',
  };
}

/**
 * The runtime again, for what resolution decides: a new target plan, or Resolved settling,
 * makes the rollout step look; the drift check compares against the target plan alone, so only
 * a new one wakes it, and only once a plan is active: before that it has nothing to compare, and
 * a rollout's end wakes it when one becomes active. Resolution running while no target is named
 * wakes neither, nor do the rollout step's own writes (Released, the active plan).
 */
export const RUNTIME_TARGET_WATCH: WatchedKind<RuntimeObject> = {
  id: 'runtime-target',
  wake: WAKE.targetChange,
  ...OF_THE_RUNTIME,
  arrivalIsNews: () => false,
  fingerprint: (obj) => JSON.stringify(resolution(obj)),
  stepPrint: (obj, step) => {
    const { target, settled } = resolution(obj);
    if (step.name === STEP.rollout) return JSON.stringify([target, target !== '' && settled]);
    return JSON.stringify([statusPlan(obj, 'activePlan') === undefined ? '' : target]);
  },
};

/**
 * What a notification turns on (shared/notifications/derive.ts): the active plan, Released (status,
 * reason, since when), and Stalled while it is True. Stalled False is nothing to tell, nor is
 * Released waiting for a first target plan, nor the target plan itself: the rollouts a target
 * brings are told through Released's reason moving.
 */
function noticePrint(obj: RuntimeObject): string {
  const status = (obj.status ?? {}) as {
    activePlan?: unknown;
    conditions?: readonly { type: string; status: string; reason: string; lastTransitionTime?: string }[];
  };
  const shown = (type: string): unknown[] => {
    const c = status.conditions?.find((x) => x.type === type);
    return [c?.status ?? '', c?.reason ?? '', c?.lastTransitionTime ?? ''];
  };
  const released = shown(CONDITION.released);
  const stalled = shown(CONDITION.stalled);
  return JSON.stringify([
    status.activePlan ?? '',
    released[0] === '' || released[1] === NO_TARGET_YET ? '' : released,
    stalled[0] === 'True' ? stalled : '',
  ]);
}

/** A runtime with no plan and neither condition yet: nothing a notification could tell. */
const NOTHING_TO_TELL = noticePrint({ metadata: { name: '', uid: '' } } as RuntimeObject);

/**
 * The runtime once more, for the notify step: Released and Stalled moving, or the plans, may be
 * worth telling. Only the fields a notification turns on, so a message rewritten with the same
 * reason is no news; status.notifications, the notify step's own write, is not among them. A new
 * runtime is news only once it has something to tell.
 */
export const RUNTIME_NOTICE_WATCH: WatchedKind<RuntimeObject> = {
  id: 'runtime-notices',
  wake: WAKE.noticeChange,
  ...OF_THE_RUNTIME,
  arrivalIsNews: (obj) => noticePrint(obj) !== NOTHING_TO_TELL,
  fingerprint: noticePrint,
};

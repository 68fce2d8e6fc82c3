// The kinds the forwarder watches, and for each: which runtime an object concerns (from its
// labels or annotations, never its body) and what about it makes work. Steps name these in the
// step table's `wakesOn`; a kind no step names is not watched.
import {
  ANNOTATION,
  ARGOCD,
  ARGOCD_REGISTRY_SECRET,
  FIELD_MANAGER,
  FORWARDER_CHECKPOINT,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
  ROLE,
  RUNTIME_NAME,
} from '../api/constants.ts';
import { createHash } from 'node:crypto';
import { STAGE } from '../aicr/stages.ts';
import { type ConfigMapObject, type GenericObject, KIND } from '../kube/kinds.ts';
import { STEP_TABLE, type StepRow, WAKE } from '../steps/table.ts';
import { type NodeFacts, nodeFingerprint } from '../discovery/nodeGroups.ts';
import { fieldAt } from '../kube/fieldPath.ts';
import { type ReportStage, reportStage } from '../rollout/rules/gate.ts';
import { RUN_WATCHES } from './runWatches.ts';
import { type Watchable, type WatchedKind, runtimeFromAnnotation } from './watchedKind.ts';
import {
  RUNTIME_DISCOVERY_WATCH,
  RUNTIME_NOTICE_WATCH,
  RUNTIME_TARGET_WATCH,
  RUNTIME_WATCH,
} from './runtimeWatches.ts';
import { CONFIGURATION_WATCH } from './configurationWatch.ts';

export { RUNTIME_DISCOVERY_WATCH, RUNTIME_NOTICE_WATCH, RUNTIME_TARGET_WATCH, RUNTIME_WATCH };

/**
 * Rollouts: an approver recording (or an admin clearing) an approval changes the spec, which is
 * news; the control plane's own status writes are not, nor are rollouts it just created.
 */
export const ROLLOUT_WATCH: WatchedKind<GenericObject> = {
  wake: WAKE.rolloutChange,
  kind: KIND.runtimeRollout,
  runtimeOf: (obj) => {
    const uid = (obj as { spec?: { runtimeUID?: unknown } }).spec?.runtimeUID;
    return typeof uid === 'string' ? { name: RUNTIME_NAME, uid } : undefined;
  },
  arrivalIsNews: () => false,
  fingerprint: (obj) => JSON.stringify([obj.metadata.generation ?? 0, obj.metadata.deletionTimestamp ?? null]),
};

/**
 * Owned Argo CD Applications, for the rollout step: an edit to what was written is drift a step
 * in flight must stop for, and Argo CD's report moving to another stage (gate.ts `reportStage`:
 * settled, failed, degraded, refused) is what a step waits on. Argo CD's many writes between
 * those stages (operation Running, OutOfSync, Progressing, reconciledAt) are no news: each would
 * cost the step a look that ends as the one before it did, and the step's recheck catches
 * whatever the stages miss. Cluster-wide with a label, so the forwarder's rights need no Argo CD
 * namespace when the chart installs.
 */
const OWNED_APPLICATIONS = { labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}` };

const digestOf = (values: readonly unknown[]): string =>
  createHash('sha256').update(JSON.stringify(values)).digest('hex');
const fingerprintOf =
  (paths: readonly string[]) =>
  (obj: GenericObject): string =>
    digestOf(paths.map((p) => fieldAt(obj, p) ?? null));

interface ApplicationPrint {
  readonly spec: string;
  /** Whether only the rollout's field manager holds fields of the spec: what a step wrote, unedited. */
  readonly specByStep: boolean;
  readonly deletion: string;
  readonly stage: ReportStage;
  /** Whether a refresh asked of Argo CD waits: it takes the ask away in the write of its next report. */
  readonly refresh: boolean;
}

/** Whether a field manager other than the rollout step's holds any of the Application's spec (a person's edit, say). */
function specEditedByOthers(app: GenericObject): boolean {
  const entries = fieldAt(app, 'metadata.managedFields');
  if (!Array.isArray(entries)) return true;
  return entries.some(
    (e) => fieldAt(e, 'manager') !== FIELD_MANAGER.rollout && fieldAt(e, 'fieldsV1.f:spec') !== undefined,
  );
}

const applicationPrint = (app: GenericObject): ApplicationPrint => ({
  spec: digestOf([fieldAt(app, 'spec') ?? null]),
  specByStep: !specEditedByOthers(app),
  deletion: digestOf([fieldAt(app, 'metadata.deletionTimestamp') ?? null, fieldAt(app, 'metadata.finalizers') ?? null]),
  stage: reportStage(app),
  refresh: app.metadata.annotations?.[ARGOCD.refreshAnnotation] !== undefined,
});

/** Nothing but the refresh flag changed, and it was set: only a later report can answer it. */
const refreshAsked = (b: ApplicationPrint, a: ApplicationPrint): boolean =>
  !b.refresh && a.refresh && JSON.stringify({ ...a, refresh: false }) === JSON.stringify(b);

/** What both watches of the owned Applications are: their kind, the runtime each names, its arrival no news. */
const OWNED_APPLICATION = {
  kind: KIND.application,
  selection: OWNED_APPLICATIONS,
  runtimeOf: (obj: GenericObject) => runtimeFromAnnotation(obj),
  arrivalIsNews: () => false,
} as const;

export const APPLICATION_WATCH: WatchedKind<GenericObject> = {
  id: 'applications',
  wake: WAKE.applicationChange,
  ...OWNED_APPLICATION,
  fingerprint: (obj) => JSON.stringify(applicationPrint(obj)),
  // The step's own write of a new spec, which Argo CD has yet to compare, is no news: the step
  // wrote it in the look that ended, and what it waits for is the stage Argo CD reaches next. A
  // refresh asked (a step that wrote no new spec asks one) is no news either; Argo CD answering
  // it is, as the report it writes then is the one such a step waits for, though its stage may
  // read as before.
  changeIsNews: (before, after) => {
    const [b, a] = [JSON.parse(before) as ApplicationPrint, JSON.parse(after) as ApplicationPrint];
    const ownWrite = a.spec !== b.spec && a.specByStep && a.deletion === b.deletion && a.stage === 'waiting';
    return !ownWrite && !refreshAsked(b, a);
  },
};

/**
 * The same Applications, for the drift check: what was written (their spec) and whether they
 * still exist, never Argo CD's status, which churns through every sync and has no bearing on drift.
 */
export const APPLICATION_SPEC_WATCH: WatchedKind<GenericObject> = {
  id: 'application-specs',
  wake: WAKE.applicationSpecChange,
  ...OWNED_APPLICATION,
  fingerprint: fingerprintOf(['spec', 'metadata.deletionTimestamp', 'metadata.finalizers']),
};

/**
 * Published snapshots in aicr-system: one edited or deleted by hand wakes discovery to replace it.
 * One arriving is the snapshot step publishing it, in the look that then writes status.discovery.
 */
export const SNAPSHOT_CONFIGMAP_WATCH: WatchedKind<ConfigMapObject> = {
  id: 'snapshots',
  wake: WAKE.snapshotRun,
  kind: KIND.configMap,
  selection: { namespace: NAMESPACES.system, labelSelector: `${LABEL.stage}=${STAGE.snapshot}` },
  runtimeOf: runtimeFromAnnotation,
  arrivalIsNews: () => false,
  fingerprint: (cm) =>
    createHash('sha256')
      .update(JSON.stringify([cm.data ?? {}, cm.metadata.labels ?? {}]))
      .digest('hex'),
};

/**
 * Plans in aicr-system: one a person deleted or relabelled makes resolve look again (PLAN-3). A
 * plan may record an earlier runtime, so the forwarder looks the one runtime up (an empty UID).
 * Plans the control plane just wrote are no news, and neither is a plan written again: the
 * admission policy lets only resolution change a plan, which it does to record the runtime it
 * now resolves for (PLAN-5), with that runtime's inputs but the same releases and digest. So
 * only the labels and the digest and origin annotations count.
 */
export const PLAN_WATCH: WatchedKind<ConfigMapObject> = {
  id: 'plans',
  wake: WAKE.planChange,
  kind: KIND.configMap,
  selection: { namespace: NAMESPACES.system, labelSelector: `${LABEL.role}=${ROLE.plan}` },
  runtimeOf: () => ({ name: RUNTIME_NAME, uid: '' }),
  arrivalIsNews: () => false,
  fingerprint: (cm) =>
    digestOf([
      cm.metadata.labels ?? {},
      cm.metadata.annotations?.[ANNOTATION.planDigest] ?? null,
      cm.metadata.annotations?.[ANNOTATION.planOrigin] ?? null,
    ]),
};

/**
 * Nodes concern the one runtime, whose UID a Node cannot name: the forwarder looks it up when
 * it sends (an empty UID). Only a Node's group facts count, so status heartbeats are not news;
 * a Node added to a group that exists still wakes discovery, which then finds nothing new.
 */
export const NODE_WATCH: WatchedKind<GenericObject> = {
  wake: WAKE.nodeChange,
  kind: KIND.node,
  runtimeOf: () => ({ name: RUNTIME_NAME, uid: '' }),
  fingerprint: (node) => nodeFingerprint(node as unknown as NodeFacts),
};

/**
 * Argo CD's registry Secret, by name, so the forwarder may read that one Secret and no other:
 * deleted or edited, it wakes the token-refresh step to write it again. The step's own writes
 * wake it once more and it finds nothing to do. Only a digest of the contents is kept.
 */
export const REGISTRY_SECRET_WATCH: WatchedKind<GenericObject> = {
  id: 'registry-secret',
  wake: WAKE.registryCredentialsChange,
  kind: KIND.secret,
  selection: {
    namespace: ARGOCD_REGISTRY_SECRET.namespace,
    fieldSelector: `metadata.name=${ARGOCD_REGISTRY_SECRET.name}`,
  },
  runtimeOf: () => ({ name: RUNTIME_NAME, uid: '' }),
  fingerprint: (s) =>
    createHash('sha256')
      .update(
        JSON.stringify([
          (s as { data?: unknown }).data ?? {},
          s.metadata.labels ?? {},
          s.metadata.annotations ?? {},
          s.metadata.deletionTimestamp ?? null,
        ]),
      )
      .digest('hex'),
};

export const WATCHED: readonly WatchedKind<Watchable>[] = [
  RUNTIME_WATCH,
  RUNTIME_DISCOVERY_WATCH,
  ...RUN_WATCHES,
  SNAPSHOT_CONFIGMAP_WATCH,
  PLAN_WATCH,
  NODE_WATCH,
  RUNTIME_TARGET_WATCH,
  RUNTIME_NOTICE_WATCH,
  ROLLOUT_WATCH,
  APPLICATION_WATCH,
  APPLICATION_SPEC_WATCH,
  REGISTRY_SECRET_WATCH,
  CONFIGURATION_WATCH,
];

/** The kinds some step of the table wakes on: what the forwarder watches. */
export function watchedBy(table: readonly StepRow[] = STEP_TABLE): WatchedKind<Watchable>[] {
  const woken = new Set(table.flatMap((r) => [...r.wakesOn] as string[]));
  return WATCHED.filter((w) => woken.has(w.wake));
}

/** Each watched kind keeps its own checkpoint ConfigMap, so one kind's progress never moves another's. */
export function checkpointName(w: WatchedKind<Watchable>): string {
  return w.kind === KIND.clusterRuntime && !w.id
    ? FORWARDER_CHECKPOINT.name
    : `${FORWARDER_CHECKPOINT.name}-${w.id ?? w.kind.plural}`;
}

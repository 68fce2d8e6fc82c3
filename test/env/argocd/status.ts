// The status Argo CD's application controller would write, computed from the Application and
// the comparison's outcome. Pure, so each rule reads in one place.
import type { Comparison } from './compare.ts';
import {
  type AppStatus,
  type Application,
  type Condition,
  type Health,
  HISTORY_LIMIT,
  type HistoryEntry,
  type Operation,
  type OperationState,
  STAND_IN,
  type Source,
  revised,
  revisionsOf,
  sourcesOf,
} from './types.ts';

/** The test knobs in force for one Application. */
export interface AppKnobs {
  readonly degraded: boolean;
  readonly neverSync: boolean;
  readonly olderRevision: boolean;
}

/** A sync to perform: its revisions and the operation as recorded in operationState. */
export interface SyncPlan {
  readonly revisions: readonly string[];
  readonly operation: Operation;
  /** A manual request in the top-level `operation` field, to clear once done. */
  readonly manual: boolean;
}

/** RFC 3339 at second precision, truncated, as Kubernetes' metav1.Time serialises. */
export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

export const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

export function targetRevisions(app: Application): string[] {
  return sourcesOf(app).sources.map((s) => s.targetRevision ?? '');
}

export function comparedTo(app: Application): Record<string, unknown> {
  const { sources, multi } = sourcesOf(app);
  return { ...(multi ? { sources } : { source: sources[0] ?? {} }), destination: app.spec.destination ?? {} };
}

function historySources(entry: HistoryEntry): readonly Source[] {
  return entry.sources ?? (entry.source ? [entry.source] : []);
}

/** Deployed at what the spec asks for: the last sync used these sources (and revisions, unless a knob lies about them). */
export function inSync(app: Application, knobs: AppKnobs): boolean {
  const last = app.status?.history?.at(-1);
  if (!last || !sameJson(historySources(last), sourcesOf(app).sources)) return false;
  return knobs.olderRevision || sameJson(revisionsOf(last), targetRevisions(app));
}

/** For each source, the last revision in history other than the target (0.0.0 when none). */
export function olderRevisions(app: Application, target: readonly string[]): string[] {
  const history = [...(app.status?.history ?? [])].reverse();
  return target.map((t, i) => history.map((h) => revisionsOf(h)[i]).find((r) => r !== undefined && r !== t) ?? '0.0.0');
}

function conditionsWith(prev: readonly Condition[], error: string | undefined, now: Date): Condition[] {
  const others = prev.filter((c) => c.type !== 'ComparisonError');
  if (error === undefined) return others;
  const before = prev.find((c) => c.type === 'ComparisonError');
  return [...others, { type: 'ComparisonError', message: error, lastTransitionTime: before?.lastTransitionTime ?? timestamp(now) }];
}

function revisionFields(revisions: readonly string[], multi: boolean): { revision?: string; revisions?: readonly string[] } {
  return multi ? { revisions } : { revision: revisions[0] ?? '' };
}

/** After a comparison: sync status against it, ComparisonError set or dropped, reconciledAt now. */
export function comparedStatus(app: Application, cmp: Comparison, knobs: AppKnobs, now: Date): AppStatus {
  const prev = app.status ?? {};
  const { multi } = sourcesOf(app);
  const base = { ...prev, conditions: conditionsWith(prev.conditions ?? [], cmp.ok ? undefined : cmp.message, now), reconciledAt: timestamp(now) };
  if (!cmp.ok) {
    const sync = { ...prev.sync, status: 'Unknown', comparedTo: comparedTo(app) };
    return { ...base, sync, health: prev.health ?? { status: 'Unknown' } };
  }
  const synced = inSync(app, knobs);
  const reported = synced && knobs.olderRevision ? revisionsOf(prev.history?.at(-1)) : cmp.revisions;
  return {
    ...base,
    sync: { status: synced ? 'Synced' : 'OutOfSync', ...revisionFields(reported, multi), comparedTo: comparedTo(app) },
    // Nothing deployed yet reads as Missing, as Argo CD reports an Application whose resources do not exist.
    health: prev.health ?? { status: 'Missing' },
  };
}

/** The sync wanted now: a manual `operation`, or automated sync when not deployed at the target. */
export function syncPlan(app: Application, knobs: AppKnobs, cmp: Comparison & { ok: true }): SyncPlan | undefined {
  const requested = app.operation?.sync;
  if (app.operation && requested) {
    const revisions = requested.revisions ? [...requested.revisions] : requested.revision ? [requested.revision] : cmp.revisions;
    return { revisions, operation: app.operation, manual: true };
  }
  const automated = app.spec.syncPolicy?.automated;
  if (!automated || automated.enabled === false || inSync(app, knobs)) return undefined;
  return { revisions: cmp.revisions, operation: { sync: revisionFields(cmp.revisions, sourcesOf(app).multi), initiatedBy: { automated: true } }, manual: false };
}

export function runningStatus(base: AppStatus, plan: SyncPlan, now: Date): AppStatus {
  const operationState: OperationState = {
    phase: 'Running',
    startedAt: timestamp(now),
    operation: plan.operation,
    message: `syncing to ${plan.revisions.join(', ')} ${STAND_IN}`,
  };
  return { ...base, operationState };
}

/** A manual operation that cannot run because the comparison failed. */
export function failedOperation(base: AppStatus, operation: Operation, message: string, now: Date): AppStatus {
  const at = timestamp(now);
  return { ...base, operationState: { phase: 'Failed', startedAt: at, finishedAt: at, operation, message } };
}

function health(prev: Health | undefined, knobs: AppKnobs, now: Date): Health {
  const next: Health = knobs.degraded
    ? { status: 'Degraded', message: `a resource of this Application is Degraded (test knob) ${STAND_IN}` }
    : { status: 'Healthy' };
  const keep = prev?.status === next.status && prev.lastTransitionTime !== undefined;
  return { ...next, lastTransitionTime: keep ? (prev.lastTransitionTime ?? '') : timestamp(now) };
}

export interface SyncDone {
  readonly app: Application;
  readonly running: AppStatus;
  readonly plan: SyncPlan;
  readonly knobs: AppKnobs;
}

/** After a sync: Succeeded, Synced at the revisions (or the older ones a knob reports), healthy, one more history entry. */
export function syncedStatus(done: SyncDone, now: Date): AppStatus {
  const { app, running, plan, knobs } = done;
  const { sources, multi } = sourcesOf(app);
  const reported = knobs.olderRevision ? olderRevisions(app, plan.revisions) : [...plan.revisions];
  const result = revised(reported, sources, multi);
  const history = running.history ?? [];
  const startedAt = running.operationState?.startedAt ?? timestamp(now);
  const entry: HistoryEntry = { id: (history.at(-1)?.id ?? -1) + 1, deployStartedAt: startedAt, deployedAt: timestamp(now), ...result, ...(plan.operation.initiatedBy ? { initiatedBy: plan.operation.initiatedBy } : {}) };
  return {
    ...running,
    sync: { status: 'Synced', ...revisionFields(reported, multi), comparedTo: comparedTo(app) },
    health: health(app.status?.health, knobs, now),
    operationState: {
      phase: 'Succeeded',
      startedAt,
      finishedAt: timestamp(now),
      operation: plan.operation,
      message: 'successfully synced (Argo CD stand-in: no resources were applied)',
      // Argo CD always writes syncResult.revision, empty for several sources.
      syncResult: multi ? { revision: '', ...result } : result,
    },
    history: [...history, entry].slice(-HISTORY_LIMIT),
    reconciledAt: timestamp(now),
  };
}

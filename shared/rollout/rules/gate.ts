// When a step's Application counts as done: Argo CD reports it synced and healthy at the chart
// versions the step wrote, for the spec the step wrote, in a report no older than the write.
// Anything else names what is missing, so `kubectl aicr describe` can say what the step waits for.
// "Synced at the versions" is Argo CD's comparison (status.sync), not its last sync operation:
// automated sync runs only when a comparison finds the Application OutOfSync, so a version bump
// whose manifests render the same is Synced at the new version with no new operation, and
// operationState still names the old one. An Application whose resources were already live
// (written again after a deletion that left them running) may never have an operation at all.
import { fieldAt, stringAt } from '../../kube/fieldPath.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import { canonicalJson } from '../../plans/digest.ts';

export type GateVerdict =
  { readonly held: true } | { readonly held: false; readonly reason: GateReason; readonly message: string };
/** Why a step waits, as its status says (RuntimeRollout status.steps[].reason). */
export type GateReason =
  'ApplicationMissing' | 'SpecDrifted' | 'ComparisonError' | 'SpecRefused' | 'SyncFailed' | 'Degraded' | 'GateNotMet';

const waiting = (reason: GateReason, message: string): GateVerdict => ({ held: false, reason, message });

/** A source whose every field is empty stands for none. */
function emptySource(source: unknown): boolean {
  return (
    source !== null &&
    typeof source === 'object' &&
    Object.values(source).every((v) => v === '' || v === undefined || v === null)
  );
}

/** The value with every null-valued object key left out, at any depth. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/**
 * What of an Application the step decides: its sources and where they deploy, as Argo CD records
 * them in comparedTo. Argo CD v3.5.1 records a multi-source comparison with an empty `source`
 * ({repoURL: ""}) beside `sources`, which means no single source, and drops null values from
 * `valuesObject`; both sides are read that way.
 */
function targets(spec: unknown): string {
  const source = fieldAt(spec, 'source');
  const picked = {
    source: source === undefined || emptySource(source) ? undefined : source,
    sources: fieldAt(spec, 'sources'),
    destination: fieldAt(spec, 'destination'),
  };
  return canonicalJson(withoutNulls(picked));
}

/** The revisions a spec asks for: its single source's, or each of its sources' in order. */
function targetRevisions(spec: unknown): string[] {
  const source = fieldAt(spec, 'source');
  if (source !== undefined && !emptySource(source)) return [stringAt(source, 'targetRevision') ?? ''];
  const sources = fieldAt(spec, 'sources');
  return Array.isArray(sources) ? sources.map((s) => stringAt(s, 'targetRevision') ?? '') : [];
}

/** A single source's `revision`, or a multi-source `revisions` list, as one list. */
function revisionsAt(app: unknown, path: string): string[] {
  const many = fieldAt(app, `${path}.revisions`);
  if (Array.isArray(many)) return many.map(String);
  const one = stringAt(app, `${path}.revision`);
  return one ? [one] : [];
}

/** The message of Argo CD's condition of this type on the Application, if it has one. */
function conditionMessage(app: unknown, type: string): string | undefined {
  const conditions = fieldAt(app, 'status.conditions');
  if (!Array.isArray(conditions)) return undefined;
  const found = conditions.find((c) => fieldAt(c, 'type') === type);
  return found === undefined ? undefined : (stringAt(found, 'message') ?? 'no message');
}

/** Argo CD's own report on what it compared and when; stale or failed reports do not count. */
function reportProblem(name: string, app: unknown, writtenAt: Date): GateVerdict | undefined {
  // InvalidSpecError: the AppProject (or the spec itself) refuses the Application, so Argo CD
  // neither compares nor syncs it.
  const refused = conditionMessage(app, 'InvalidSpecError');
  if (refused)
    return waiting(
      'SpecRefused',
      `Argo CD refuses Application ${name}: ${refused}. Allow it in the AppProject (argocd.project), ` +
        "or fix the plan's source or destination; the step fails at actionTimeout otherwise",
    );
  const error = conditionMessage(app, 'ComparisonError');
  if (error) return waiting('ComparisonError', `Argo CD cannot compare Application ${name}: ${error}`);
  if (targets(fieldAt(app, 'status.sync.comparedTo')) !== targets(fieldAt(app, 'spec')))
    return waiting('GateNotMet', `Argo CD has not yet compared the spec written to Application ${name}`);
  const at = stringAt(app, 'status.reconciledAt');
  // Argo CD reports to the second; a report in the second of the write may be the one after it.
  if (!(Date.parse(at ?? '') >= Math.floor(writtenAt.getTime() / 1000) * 1000)) {
    return waiting(
      'GateNotMet',
      `Argo CD's last report on Application ${name} (${at ?? 'none'}) is older than the write at ` +
        `${writtenAt.toISOString()}`,
    );
  }
  return undefined;
}

function operationProblem(name: string, app: unknown): GateVerdict | undefined {
  const phase = stringAt(app, 'status.operationState.phase');
  if (phase === 'Failed' || phase === 'Error')
    return waiting(
      'SyncFailed',
      `Argo CD's sync of Application ${name} ended ${phase}: ` +
        `${stringAt(app, 'status.operationState.message') ?? 'no message'}`,
    );
  if (fieldAt(app, 'operation'))
    return waiting('GateNotMet', `Argo CD is syncing Application ${name} (operation requested)`);
  if (phase !== undefined && phase !== 'Succeeded')
    return waiting('GateNotMet', `Argo CD is syncing Application ${name} (operation ${phase})`);
  const sync = stringAt(app, 'status.sync.status');
  if (sync !== 'Synced') return waiting('GateNotMet', `Argo CD reports Application ${name} ${sync ?? 'not compared'}`);
  return undefined;
}

function revisionProblem(name: string, app: unknown, wanted: readonly string[]): GateVerdict | undefined {
  const [synced, result] = [revisionsAt(app, 'status.sync'), revisionsAt(app, 'status.operationState.syncResult')];
  if (canonicalJson(synced) === canonicalJson(wanted)) return undefined;
  return waiting(
    'GateNotMet',
    `Argo CD reports Application ${name} synced at ${synced.join(', ') || 'no revision'} (last sync ` +
      `${result.join(', ') || 'none'}), not at ${wanted.join(', ')}`,
  );
}

function healthProblem(name: string, app: unknown): GateVerdict | undefined {
  const health = stringAt(app, 'status.health.status');
  if (health === 'Healthy') return undefined;
  const message = stringAt(app, 'status.health.message');
  return waiting(
    health === 'Degraded' ? 'Degraded' : 'GateNotMet',
    `Argo CD reports Application ${name} ${health ?? 'without health'}${message ? `: ${message}` : ''}`,
  );
}

/** What a verdict is given against: the spec a step wrote. */
interface Wanted {
  readonly name: string;
  readonly spec: unknown;
  readonly project: string | undefined;
}

function verdict(live: GenericObject, wanted: Wanted, writtenAt: Date): GateVerdict {
  const { name } = wanted;
  if (targets(fieldAt(live, 'spec')) !== targets(wanted.spec) || stringAt(live, 'spec.project') !== wanted.project) {
    return waiting(
      'SpecDrifted',
      `Application ${name} was edited since the step wrote it (its source, values, ` +
        'destination or project differ); the control plane does not write over the edit: undo it, ' +
        'or the step fails at actionTimeout',
    );
  }
  return (
    reportProblem(name, live, writtenAt) ??
    operationProblem(name, live) ??
    revisionProblem(name, live, targetRevisions(wanted.spec)) ??
    healthProblem(name, live) ?? { held: true }
  );
}

/** The gate on an Install or Upgrade step's Application, written at `writtenAt`. */
export function gate(live: GenericObject | undefined, intended: PlanApplication, writtenAt: Date): GateVerdict {
  const name = intended.metadata.name;
  if (!live)
    return waiting(
      'ApplicationMissing',
      `Application ${name} is gone since the step wrote it; it is not written again mid-step`,
    );
  return verdict(live, { name, spec: intended.spec, project: intended.spec.project }, writtenAt);
}

/** Where Argo CD's report on an Application stands, in the terms a step's verdict turns on. */
export type ReportStage = 'refused' | 'comparison-error' | 'sync-failed' | 'degraded' | 'settled' | 'waiting';

const STAGE_OF: Readonly<Record<GateReason, ReportStage>> = {
  SpecRefused: 'refused',
  ComparisonError: 'comparison-error',
  SyncFailed: 'sync-failed',
  Degraded: 'degraded',
  GateNotMet: 'waiting',
  // Neither can be said of an Application judged against its own spec.
  ApplicationMissing: 'waiting',
  SpecDrifted: 'waiting',
};

/**
 * The stage of Argo CD's report, read from the Application alone: the gate's verdict on it as if
 * its own spec were what a step wrote, at no particular time. The forwarder wakes the rollout step
 * only when it moves, so Argo CD's intermediate writes while it compares and syncs (operation
 * requested, Running, OutOfSync, Progressing, revisions moving) all read `waiting` and cost no
 * look; a report older than a step's write reads as its stage, and the step's recheck (or the
 * refresh it asked for, see watched.ts) covers that case.
 */
export function reportStage(app: GenericObject): ReportStage {
  const own = { name: app.metadata.name, spec: fieldAt(app, 'spec'), project: stringAt(app, 'spec.project') };
  const v = verdict(app, own, new Date(0));
  return v.held ? 'settled' : STAGE_OF[v.reason];
}

// One status write per step run, in one apply: the step's own domain conditions and fields under
// its field manager, with the summary (Ready, Reconciling, Stalled, observedGeneration) worked out
// from the runtime as that apply leaves it. The apply is conditional on the resourceVersion it was
// computed from, and not sent when it would change nothing (ADR 0003).
import type { Condition } from '../api/condition.ts';
import { FIELD_MANAGER, SUMMARY_CONDITIONS, type DomainConditionType } from '../api/constants.ts';
import { ControlPlaneError, KubeRequestError, StatusWriteRefusedError } from '../errors.ts';
import type { KubePort } from '../kube/port.ts';
import { KIND, type RuntimeObject } from '../kube/kinds.ts';
import { type DesiredCondition, buildConditions, sameConditionsOf } from './conditions.ts';
import { recordEvent } from '../events/recorder.ts';
import { isStalledClass, reasonRow } from '../api/reasons.ts';
import { summarize } from './summarize.ts';
import { applyThroughRaces } from './lostRace.ts';
import { type SpecFields, specPartDigest } from './specPart.ts';

/** A step tried to write a condition it does not own, or a reason its condition cannot carry. */
export class StatusContractError extends ControlPlaneError {
  readonly kind = 'status-contract';
}

/**
 * What the writer needs to know of the step that writes: a step table row is one. Declared here,
 * so the status layer names no step and the table depends on it, not the other way round.
 */
export interface StatusWriter {
  readonly name: string;
  /** The domain conditions only this step writes. */
  readonly owns: readonly DomainConditionType[];
  readonly fieldManager: string;
  /** Status fields (besides conditions) only this step writes. */
  readonly ownsFields?: readonly string[];
  /** The part of the spec its conditions depend on (specPart.ts); undefined, the whole spec. */
  readonly specFields?: SpecFields;
}

export interface StatusWrite {
  readonly kube: KubePort;
  readonly runtime: RuntimeObject;
  readonly row: StatusWriter;
  /** The step's owned conditions as they should be; an owned type left out is removed. */
  readonly desired: readonly DesiredCondition[];
  /** The step's owned status fields as they should be; undefined keeps them as they stand. */
  readonly fields?: Readonly<Record<string, string | undefined>>;
  /** Domain conditions some step writes, which the summary waits for. */
  readonly expected: readonly DomainConditionType[];
  /** Every step that writes conditions: whose conditions depend on part of the spec only. */
  readonly writers?: readonly StatusWriter[];
  readonly now: Date;
  /** Names the step in the Events its condition transitions record. */
  readonly reporter?: string;
  /** Event writes are best effort: a failure is reported here and the status write stands. */
  readonly onEventError?: (err: unknown) => void;
}

function checkContract(
  row: StatusWriter,
  desired: readonly DesiredCondition[],
  fields: Readonly<Record<string, unknown>> | undefined,
): void {
  for (const key of Object.keys(fields ?? {})) {
    if (!row.ownsFields?.includes(key))
      throw new StatusContractError(`step ${row.name} wrote status.${key}, which it does not own`);
  }
  for (const d of desired) {
    if (!(row.owns as readonly string[]).includes(d.type)) {
      throw new StatusContractError(`step ${row.name} wrote condition ${d.type}, which it does not own`);
    }
    const allowed = reasonRow(d.reason)?.on as readonly string[] | undefined;
    if (!allowed?.includes(d.type))
      throw new StatusContractError(`reason ${d.reason} is not one condition ${d.type} can carry`);
  }
}

async function apply(
  kube: KubePort,
  runtime: RuntimeObject,
  fieldManager: string,
  status: Record<string, unknown>,
): Promise<RuntimeObject> {
  try {
    const obj = {
      metadata: { name: runtime.metadata.name, resourceVersion: runtime.metadata.resourceVersion },
      status,
    };
    // Forced: each manager is the only legitimate writer of its fields (ADR 0003).
    return await kube.applyStatus(KIND.clusterRuntime, obj, { fieldManager, force: true });
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 422) throw new StatusWriteRefusedError(err.fields);
    throw err;
  }
}

function conditionsOf(runtime: RuntimeObject): readonly Condition[] {
  return runtime.status?.conditions ?? [];
}

/** The owned fields to apply: as reported, else as they stand (an apply that left them out would drop them). */
function ownedFields(w: StatusWrite): Record<string, string> {
  const out: Record<string, string> = {};
  const status = (w.runtime.status ?? {}) as Record<string, unknown>;
  for (const key of w.row.ownsFields ?? []) {
    const value = w.fields ? w.fields[key] : status[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

function sameFields(runtime: RuntimeObject, fields: Record<string, string>, keys: readonly string[]): boolean {
  const status = (runtime.status ?? {}) as Record<string, unknown>;
  return keys.every((k) => status[k] === fields[k]);
}

type ObservedSpec = Readonly<Record<string, string>>;

function observedSpecOf(runtime: RuntimeObject): ObservedSpec {
  const value = (runtime.status as { observedSpec?: unknown } | undefined)?.observedSpec;
  return value !== null && typeof value === 'object' ? (value as ObservedSpec) : {};
}

/** Writes what changed; returns how many applies were sent (0 or 1). */
export async function writeStepStatus(w: StatusWrite): Promise<number> {
  checkContract(w.row, w.desired, w.fields);
  const generation = w.runtime.metadata.generation ?? 0;
  const before = conditionsOf(w.runtime);
  const owned = buildConditions(before, w.desired, generation, w.now);
  const fields = ownedFields(w);
  // A step whose conditions depend on part of the spec records what that part was.
  const digest = w.row.specFields ? specPartDigest(w.runtime.spec, w.row.specFields) : undefined;
  const mine: OwnStatus = { owned, fields, digest };
  // Only the summary is worked out again after a lost race: it is all derived from what won.
  const written = await applyThroughRaces(
    w.kube,
    w.runtime,
    (rt) => ownedStatus(rt, w.row),
    async (rt) => {
      const status = statusToWrite(w, rt, mine, generation);
      if (!status) return false;
      await apply(w.kube, rt, status.manager, status.body);
      return true;
    },
  );
  // After the status, so a reader of the conditions never waits for the Events.
  if (written) await recordTransitions(w, w.runtime, before, owned);
  return written ? 1 : 0;
}

interface OwnStatus {
  readonly owned: readonly Condition[];
  readonly fields: Record<string, string>;
  readonly digest: string | undefined;
}

/** Whether the row has status of its own to apply (conditions, fields or a spec digest) besides the summary. */
function holdsOwnStatus(row: StatusWriter): boolean {
  return row.owns.length > 0 || (row.ownsFields ?? []).length > 0 || row.specFields !== undefined;
}

/**
 * The one apply a look makes, or undefined when it would change nothing. A step with status of
 * its own sends the summary with it under its own manager: every apply that manager makes carries
 * the summary, so no apply of it can drop the summary by leaving it out. A step with nothing of its
 * own (its other status fields go in applies of their own) leaves the summary to the summary manager.
 */
function statusToWrite(
  w: StatusWrite,
  runtime: RuntimeObject,
  mine: OwnStatus,
  generation: number,
): { manager: string; body: Record<string, unknown> } | undefined {
  const current = conditionsOf(runtime);
  const ownMoved =
    !sameConditionsOf(current, mine.owned, w.row.owns) ||
    !sameFields(runtime, mine.fields, w.row.ownsFields ?? []) ||
    (mine.digest !== undefined && observedSpecOf(runtime)[w.row.name] !== mine.digest);
  const after = afterOwnWrite(runtime, w.row, mine);
  const summary = buildConditions(
    current,
    summarize({
      conditions: conditionsOf(after),
      generation,
      expected: w.expected,
      current: currentDespiteGeneration(after, w.writers ?? []),
    }),
    generation,
    w.now,
  );
  const summaryMoved =
    !sameConditionsOf(current, summary, SUMMARY_CONDITIONS) || runtime.status?.observedGeneration !== generation;
  if (!ownMoved && !summaryMoved) return undefined;
  const withSummary = { observedGeneration: generation, conditions: summary };
  if (!holdsOwnStatus(w.row)) return { manager: FIELD_MANAGER.summary, body: withSummary };
  const spec = mine.digest === undefined ? {} : { observedSpec: { [w.row.name]: mine.digest } };
  return {
    manager: w.row.fieldManager,
    body: { ...withSummary, conditions: [...mine.owned, ...summary], ...mine.fields, ...spec },
  };
}

/** The runtime as it will read once the step's own conditions, fields and spec digest are applied. */
function afterOwnWrite(runtime: RuntimeObject, row: StatusWriter, mine: OwnStatus): RuntimeObject {
  const owns = row.owns as readonly string[];
  const status = (runtime.status ?? {}) as Record<string, unknown>;
  const conditions = [...conditionsOf(runtime).filter((c) => !owns.includes(c.type)), ...mine.owned];
  const digest = mine.digest === undefined ? {} : { [row.name]: mine.digest };
  const observedSpec = { ...observedSpecOf(runtime), ...digest };
  return { ...runtime, status: { ...status, ...mine.fields, conditions, observedSpec } } as RuntimeObject;
}

/** The step's own conditions and fields: what a second worker of the same step would have moved. */
function ownedStatus(runtime: RuntimeObject, row: StatusWriter): unknown {
  const status = (runtime.status ?? {}) as Record<string, unknown>;
  return [
    conditionsOf(runtime).filter((c) => (row.owns as readonly string[]).includes(c.type)),
    (row.ownsFields ?? []).map((k) => status[k] ?? null),
    observedSpecOf(runtime)[row.name] ?? null,
  ];
}

/**
 * The conditions that describe an older generation but still the runtime as it is: their step
 * depends on part of the spec only, and that part is what it was when the step last wrote them.
 */
export function currentDespiteGeneration(
  runtime: RuntimeObject,
  writers: readonly StatusWriter[],
): DomainConditionType[] {
  const observed = observedSpecOf(runtime);
  return writers
    .filter((r) => r.specFields !== undefined && observed[r.name] === specPartDigest(runtime.spec, r.specFields))
    .flatMap((r) => [...r.owns]);
}

/**
 * An Event for each owned condition whose status or reason changed (COND-4). A condition's
 * first appearance is no change unless it is a Warning: a new runtime's opening states (its
 * plan being resolved, Argo CD up) stay in its conditions, where a person reads them anyway.
 */
async function recordTransitions(
  w: StatusWrite,
  runtime: RuntimeObject,
  before: readonly Condition[],
  after: readonly Condition[],
): Promise<void> {
  for (const now of after) {
    const type = transitionType(w.row, before, now);
    if (!type) continue;
    try {
      await recordEvent(
        { kube: w.kube, runtime, reporter: w.reporter ?? w.row.name, now: w.now },
        { type, reason: now.reason, message: `${now.type}=${now.status}: ${now.message}` },
      );
    } catch (err) {
      w.onEventError?.(err);
    }
  }
}

/** The Event type `now` is told with, or undefined when it is no transition worth one. */
function transitionType(
  row: StatusWriter,
  before: readonly Condition[],
  now: Condition,
): 'Warning' | 'Normal' | undefined {
  if (!(row.owns as readonly string[]).includes(now.type)) return undefined;
  const was = before.find((c) => c.type === now.type);
  if (was && was.status === now.status && was.reason === now.reason) return undefined;
  const reason = reasonRow(now.reason);
  const type = reason && isStalledClass(reason.class) ? 'Warning' : 'Normal';
  return !was && type === 'Normal' ? undefined : type;
}

/** The step's owned conditions as they stand, with one of them replaced: how a stall is written. */
export function replacingOwned(
  runtime: RuntimeObject,
  row: StatusWriter,
  replacement: DesiredCondition,
): DesiredCondition[] {
  const kept = conditionsOf(runtime)
    .filter((c) => (row.owns as readonly string[]).includes(c.type) && c.type !== replacement.type)
    .map((c) => ({ type: c.type as DomainConditionType, status: c.status, reason: c.reason, message: c.message }));
  return [...kept, replacement];
}

/** The owned condition a reason is written through, if the step owns one that can carry it. */
export function conditionForReason(row: StatusWriter, reason: string): DomainConditionType | undefined {
  const allowed = (reasonRow(reason)?.on ?? []) as readonly string[];
  return row.owns.find((t) => allowed.includes(t));
}

// Inventory drift during a rollout (ROL-2): the owned Applications compared with what the rollout
// was approved against. A release the rollout has not reached must still be as recorded at
// creation; a release it wrote must still be as it wrote it. An edit of the release in flight is
// the gate's (SpecDrifted, ROL-3), though its deletion, recreation or move is drift; a removed
// release is Argo CD's to delete. Only identity, plan and release count: sync policy and status
// are not compared. Pure, so tested without a cluster.
import { createHash } from 'node:crypto';
import { ANNOTATION } from '../../api/constants.ts';
import type { InventoryEntry, RolloutStep } from '../../api/runtimeRollout.ts';
import { fieldAt } from '../../kube/fieldPath.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import { applicationToRelease, type PlanApplication } from '../../plans/applications.ts';
import { canonicalJson, planName } from '../../plans/digest.ts';
import { STEP_WRITING, type StepState } from './progress.ts';

interface AppLike {
  readonly metadata: {
    readonly name: string;
    readonly uid?: string;
    readonly annotations?: Readonly<Record<string, string>> | undefined;
  };
}

/**
 * The release an Application carries as a digest: what the canonical release set reads from it, and
 * its sources and destination as they stand.
 */
export function releaseDigest(app: AppLike): string {
  const spec = fieldAt(app, 'spec');
  const facts = {
    release: applicationToRelease(app) ?? null,
    source: fieldAt(spec, 'source') ?? null,
    sources: fieldAt(spec, 'sources') ?? null,
    destination: fieldAt(spec, 'destination') ?? null,
  };
  return `sha256:${createHash('sha256').update(canonicalJson(facts)).digest('hex')}`;
}

/** The Argo CD project an Application belongs to, as its spec names it. */
function projectOf(app: AppLike): string | undefined {
  const project = fieldAt(app, 'spec.project');
  return typeof project === 'string' ? project : undefined;
}

export function inventoryEntry(app: GenericObject): InventoryEntry {
  const project = projectOf(app);
  return {
    name: app.metadata.name,
    uid: app.metadata.uid,
    plan: app.metadata.annotations?.[ANNOTATION.planDigest] ?? '',
    release: releaseDigest(app),
    ...(project === undefined ? {} : { project }),
  };
}

/** What the rollout was approved against, sorted by name. */
export function inventoryEntries(apps: readonly GenericObject[]): InventoryEntry[] {
  return apps.map(inventoryEntry).sort((a, b) => a.name.localeCompare(b.name));
}

export interface DriftFacts {
  /** spec.applications of the rollout; undefined when it recorded none (made by an older control plane). */
  readonly recorded: readonly InventoryEntry[] | undefined;
  readonly live: readonly GenericObject[];
  readonly steps: readonly RolloutStep[];
  readonly states: readonly StepState[];
  /** The target plan's Applications by name, and its digest. */
  readonly intended: ReadonlyMap<string, PlanApplication>;
  readonly targetDigest: string;
}

/**
 * `release` undefined: its edits are not compared here (the release in flight). `project`
 * undefined: not compared (a rollout an older control plane recorded has none).
 */
type Want =
  | {
      readonly uid?: string | undefined;
      readonly plan: string;
      readonly release?: string;
      readonly project?: string | undefined;
    }
  | 'absent'
  | 'skip';
/** A step recorded just before its write: its Application is as before the write, or as written. */
type Expected = Want | { readonly either: readonly [Want, Want] };

function expected(f: DriftFacts, name: string): Expected {
  const i = f.steps.findIndex((s) => s.release === name);
  const step = f.steps[i];
  const state = f.states[i];
  const recorded = f.recorded?.find((e) => e.name === name) ?? 'absent';
  if (!step || !state || state.startedAt === undefined) return recorded;
  const app = f.intended.get(name);
  if (step.action === 'Remove' || !app) return 'skip';
  // Recorded just before its write: the write may not have happened (a crash), and the next look makes it.
  if (state.state === 'InProgress' && state.reason === STEP_WRITING)
    return { either: [recorded, { plan: f.targetDigest }] };
  if (state.state === 'InProgress') return { uid: state.applicationUID, plan: f.targetDigest };
  return { uid: state.applicationUID, plan: f.targetDigest, release: releaseDigest(app), project: app.spec.project };
}

const planText = (digest: string): string => (digest.startsWith('sha256:') ? planName(digest) : digest || '(none)');

function changeOf(f: DriftFacts, name: string, live: GenericObject | undefined): string | undefined {
  const want = expected(f, name);
  if (typeof want === 'object' && 'either' in want) {
    const [before, written] = want.either.map((w) => changeFrom(w, name, live));
    return before === undefined ? undefined : written;
  }
  return changeFrom(want, name, live);
}

function changeFrom(want: Want, name: string, live: GenericObject | undefined): string | undefined {
  if (want === 'skip') return undefined;
  if (want === 'absent') return live ? `Application ${name} appeared` : undefined;
  if (!live) return `Application ${name} disappeared`;
  if (want.uid !== undefined && want.uid !== live.metadata.uid) return `Application ${name} was recreated`;
  const now = inventoryEntry(live);
  if (now.plan !== want.plan) return `Application ${name} is at plan ${planText(now.plan)}, not ${planText(want.plan)}`;
  return editOf(name, now, want);
}

function editOf(name: string, now: InventoryEntry, want: Exclude<Want, 'absent' | 'skip'>): string | undefined {
  if (want.project !== undefined && now.project !== want.project)
    return `Application ${name} moved to Argo CD project ${now.project ?? '(none)'}, not ${want.project}`;
  return want.release === undefined || now.release === want.release
    ? undefined
    : `Application ${name} was edited (its source, Helm values or destination)`;
}

/**
 * Each change since the rollout was approved, one phrase per Application, in name order; none for a
 * rollout that recorded no inventory.
 */
export function inventoryChanges(f: DriftFacts): string[] {
  if (!f.recorded) return [];
  const byName = new Map(f.live.filter((a) => !a.metadata.deletionTimestamp).map((a) => [a.metadata.name, a]));
  const names = [
    ...new Set([...f.recorded.map((e) => e.name), ...byName.keys(), ...f.steps.map((s) => s.release)]),
  ].sort();
  return names.map((n) => changeOf(f, n, byName.get(n))).filter((c): c is string => c !== undefined);
}

/** Whether every field of `want` is in `have` with the same value (arrays compared whole). */
function contains(have: unknown, want: unknown): boolean {
  if (want === null || typeof want !== 'object' || Array.isArray(want))
    return canonicalJson(have ?? null) === canonicalJson(want);
  if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
  return Object.entries(want).every(([k, v]) => contains((have as Record<string, unknown>)[k], v));
}

/**
 * Whether the live Application already carries everything the step's write would set: its labels,
 * annotations (the target plan's digest among them) and spec. Then the write recorded before a
 * crash went through, and applying it again would change nothing.
 */
export function writtenAsIntended(live: GenericObject, app: PlanApplication): boolean {
  const { labels, annotations } = app.metadata;
  return (
    contains(live.metadata.labels ?? {}, labels ?? {}) &&
    contains(live.metadata.annotations ?? {}, annotations ?? {}) &&
    contains(fieldAt(live, 'spec'), app.spec)
  );
}

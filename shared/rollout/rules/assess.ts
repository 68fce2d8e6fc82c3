// Assessment of a move (TRN-1): the steps from the releases the owned Applications carry now to
// the target plan's release set, and a verdict for each. Diffing what Argo CD holds, not the
// active plan, means a rollout after a failed one sees what that one already moved or removed.
// Pure: the rollout step reads the Applications and the plan and writes what this decides.
import type { RolloutStep, Verdict } from '../../api/runtimeRollout.ts';
import { MAX_VALUE_PATHS } from '../../api/runtimeRollout.ts';
import { canonicalJson } from '../../plans/digest.ts';
import type { JsonValue, Release, ReleaseSet } from '../../plans/release.ts';
import { sortReleases } from '../../plans/release.ts';

/** What Argo CD holds per release name; undefined when its Application does not read back as a release. */
export type Inventory = ReadonlyMap<string, Release | undefined>;

export interface Blocked {
  readonly release: string;
  readonly why: string;
}

export type Assessment =
  { readonly ok: true; readonly steps: RolloutStep[] } | { readonly ok: false; readonly blocked: Blocked[] };

export interface Judgement {
  readonly verdict: Verdict;
  readonly why: string;
}

/** How a changed release is judged: by AICR's upgrade-check, or `unknown` where the pinned version has none. */
export type Assessor = (release: string) => Judgement;

function chartName(r: Release): string | undefined {
  return (r.chart ?? r.manifests)?.chart;
}

/** The control plane's own rule: Argo CD cannot move a release to another namespace or chart; that is a migration. */
function migration(from: Release, to: Release): string | undefined {
  if (from.namespace !== to.namespace) return `it would move from namespace ${from.namespace} to ${to.namespace}`;
  const [a, b] = [chartName(from), chartName(to)];
  if (a !== b) return `its chart would change from ${a ?? '(none)'} to ${b ?? '(none)'}`;
  return undefined;
}

function leaves(value: JsonValue, path: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
    return;
  }
  out.set(path, canonicalJson(value));
}

/** The Helm value paths whose value differs, was added or was removed, sorted. */
export function changedValuePaths(from: Release['values'], to: Release['values']): string[] {
  const [a, b] = [new Map<string, string>(), new Map<string, string>()];
  leaves(from, '', a);
  leaves(to, '', b);
  const paths = new Set([...a.keys(), ...b.keys()]);
  return [...paths].filter((p) => a.get(p) !== b.get(p)).sort();
}

function versionOf(r: Release | undefined): string | undefined {
  return (r?.chart ?? r?.manifests)?.version;
}

function changeStep(name: string, from: Release | undefined, to: Release | undefined, judged: Judgement): RolloutStep {
  const action = to === undefined ? 'Remove' : from === undefined ? 'Install' : 'Upgrade';
  const paths = from && to ? changedValuePaths(from.values, to.values) : [];
  const [fromVersion, toVersion] = [versionOf(from), versionOf(to)];
  return {
    release: name,
    action,
    verdict: judged.verdict,
    why: judged.why,
    ...(fromVersion ? { fromVersion } : {}),
    ...(toVersion ? { toVersion } : {}),
    ...(paths.length > 0 ? { valuesChanged: paths.slice(0, MAX_VALUE_PATHS), valuesChangedCount: paths.length } : {}),
  };
}

function regated(judged: Judgement): Judgement {
  return {
    verdict: judged.verdict,
    why:
      'its Application already carries the target release, but its step in the last rollout to this plan never ' +
      `finished, so Argo CD's report is awaited again; ${judged.why}`,
  };
}

/** A release whose Application reads back as exactly the target release needs no step. */
function unchanged(from: Release | undefined, to: Release): boolean {
  return from !== undefined && canonicalJson(from) === canonicalJson(to);
}

/** The step that moves one release to its target, why it is blocked, or nothing when it is there already. */
function judgeMove(
  from: Release | undefined,
  to: Release,
  assessor: Assessor,
  again: boolean,
): Blocked | { step: RolloutStep } | undefined {
  const same = unchanged(from, to);
  if (same && !again) return undefined;
  const why = from && migration(from, to);
  if (why) return { release: to.name, why };
  const judged = same ? regated(assessor(to.name)) : assessor(to.name);
  if (judged.verdict === 'blocked') return { release: to.name, why: judged.why };
  return { step: changeStep(to.name, from, to, judged) };
}

/**
 * Installs and upgrades in the target's deployment order, then removals in reverse of their own
 * order. `unfinished` names releases whose Application already reads back as the target release
 * but whose step in an earlier rollout to the same target never finished: Argo CD never reported
 * them done, so they are steps again rather than taken as moved.
 */
export function assess(
  inventory: Inventory,
  target: ReleaseSet,
  assessor: Assessor,
  unfinished: ReadonlySet<string> = new Set(),
): Assessment {
  const blocked: Blocked[] = [];
  const steps: RolloutStep[] = [];
  for (const to of sortReleases(target)) {
    const judged = judgeMove(inventory.get(to.name), to, assessor, unfinished.has(to.name));
    if (judged === undefined) continue;
    if ('release' in judged) blocked.push(judged);
    else steps.push(judged.step);
  }
  const wanted = new Set(target.map((r) => r.name));
  const gone = [...inventory.entries()].filter(([name]) => !wanted.has(name));
  const order = (r: Release | undefined): number => r?.order ?? Number.MAX_SAFE_INTEGER;
  gone.sort(([an, a], [bn, b]) => order(b) - order(a) || bn.localeCompare(an));
  for (const [name, from] of gone) {
    const judged = assessor(name);
    if (judged.verdict === 'blocked') blocked.push({ release: name, why: judged.why });
    else steps.push(changeStep(name, from, undefined, judged));
  }
  return blocked.length > 0 ? { ok: false, blocked } : { ok: true, steps };
}

/** A cycle among the releases' dependencies, as names joined by arrows, if there is one. */
export function dependencyCycle(releases: ReleaseSet): string | undefined {
  const deps = new Map(releases.map((r) => [r.name, r.dependsOn]));
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): string | undefined => {
    if (state.get(name) === 'done') return undefined;
    if (state.get(name) === 'open') return [...path.slice(path.indexOf(name)), name].join(' → ');
    state.set(name, 'open');
    for (const dep of deps.get(name) ?? []) {
      const found = deps.has(dep) ? visit(dep, [...path, name]) : undefined;
      if (found) return found;
    }
    state.set(name, 'done');
    return undefined;
  };
  for (const r of releases) {
    const found = visit(r.name, []);
    if (found) return found;
  }
  return undefined;
}

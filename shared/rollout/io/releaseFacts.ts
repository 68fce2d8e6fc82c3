// What a release's move asks the look to read (releaseMove.ts names it): the Application by name,
// the AppProject's sync windows, the protected Pods on the GPU Nodes, the registry's charts. Each is
// read only when a move needs it, and the AppProject at most once per look, however many
// releases ask.
import { NAMESPACES } from '../../api/constants.ts';
import type { RolloutStep } from '../../api/runtimeRollout.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { StepContext } from '../../look/contract.ts';
import type { PlanApplication } from '../../plans/applications.ts';
import type { Release } from '../../plans/release.ts';
import { pullCredentials } from '../../registry/credentials.ts';
import { type WindowNow, type WindowSource, windowNow } from '../rules/maintenanceSpec.ts';
import { type StepState, acknowledged } from '../rules/progress.ts';
import { releaseMove } from '../rules/releaseMove.ts';
import type { FactName, Guarded, PinsFact, ReleaseFacts, ReleaseMove } from '../rules/releaseMoveKinds.ts';
import { wordsOf } from '../rules/releaseWords.ts';
import type { RolloutObject } from '../rules/rolloutObject.ts';
import { projectWindowsFor } from '../rules/syncWindows.ts';
import { disrupts } from '../rules/workloadGuard.ts';
import { readApplication } from './applicationWrites.ts';
import { checkPins } from './chartPins.ts';
import type { RolloutLook } from './look.ts';
import { runningWork } from './runningWork.ts';

export type FactReader = (fact: FactName, f: ReleaseFacts) => Promise<Partial<ReleaseFacts>>;

/** What the facts of a release are taken from: the look, the rollout as read, and the target plan. */
export interface ReleaseSource {
  readonly ctx: Pick<StepContext, 'now' | 'runtime'>;
  readonly look: RolloutLook;
  readonly r: RolloutObject;
  readonly actionTimeoutMs: number;
  readonly intended: ReadonlyMap<string, PlanApplication>;
  readonly releases: ReadonlyMap<string, Release>;
}

/** A move can ask for each fact once; more asks than facts is a move that forgot what it was given. */
const MOST_ASKS = 4;

/** Release `i`'s move, with whatever it asked for read. */
export async function decideRelease(
  from: ReleaseSource,
  states: readonly StepState[],
  i: number,
  read: FactReader,
): Promise<Exclude<ReleaseMove, { kind: 'need' }>> {
  let facts = factsOf(from, states, i);
  for (let asked = 0; asked <= MOST_ASKS; asked++) {
    const move = releaseMove(facts);
    if (move.kind !== 'need') return move;
    facts = { ...facts, ...(await read(move.fact, facts)) };
  }
  throw new Error(`the move of step ${i + 1} kept asking for facts it was given`);
}

function factsOf(from: ReleaseSource, states: readonly StepState[], i: number): ReleaseFacts {
  const { look, r } = from;
  const step = r.spec.steps[i];
  const state = states[i];
  if (!step || !state) throw new Error(`rollout ${r.metadata.name} has no step ${i + 1}`);
  const now = from.ctx.now();
  const intended = from.intended.get(step.release);
  const release = from.releases.get(step.release);
  const listed = listedOf(look, step.release, step.action === 'Adopt');
  return {
    step,
    state,
    words: wordsOf(r, i),
    runtimeUID: from.ctx.runtime.metadata.uid,
    now,
    actionTimeoutMs: from.actionTimeoutMs,
    ...(intended ? { intended } : {}),
    ...(release ? { release } : {}),
    acknowledged: acknowledged(r, step.release),
    maintenance: windowNow(look.settings.windows, now),
    guard: guardOf(look, r, step),
    ...(listed ? { listed } : {}),
  };
}

/** The look's own listing of the Application; an adoption's may still name another runtime. */
function listedOf(look: RolloutLook, name: string, anyRuntime: boolean): GenericObject | undefined {
  const pool = anyRuntime ? [...look.apps, ...[...look.foreign.values()].flat()] : look.apps;
  return pool.find((a) => a.metadata.name === name);
}

function guardOf(look: RolloutLook, r: RolloutObject, step: RolloutStep): Guarded {
  const guard = look.settings.workloads;
  const applies = step.action !== 'Adopt' && disrupts(guard, step.release) && !r.spec.disruption;
  return applies && guard !== 'none' ? { applies: true, guard } : { applies: false };
}

/** A reader for one look: it keeps the AppProject's sync windows once read. */
export function factReader(ctx: StepContext, look: RolloutLook): FactReader {
  let project: Promise<unknown> | undefined;
  const syncWindows = (): Promise<unknown> =>
    (project ??= ctx.kube
      .get(KIND.appProject, look.configuration.argocd.project, NAMESPACES.argocd)
      .then((p) => (p?.['spec'] as { syncWindows?: unknown } | undefined)?.syncWindows));
  return async (fact, f) => {
    switch (fact) {
      case 'live':
        return { live: (await readApplication(ctx.kube, f.step.release)) ?? 'absent' };
      case 'syncWindow':
        return { syncWindow: projectWindow(look, f, await syncWindows(), ctx.timings.engineRecheckMs) };
      case 'work':
        return f.guard.applies && f.guard.guard !== 'unreadable'
          ? { work: await runningWork(ctx.kube, f.guard.guard) }
          : { work: { shown: [], count: 0, gpuNodes: 0 } };
      case 'pins':
        return { pins: await pinsOf(ctx, look, f) };
    }
  };
}

/**
 * Whether the AppProject's sync windows let Argo CD sync the release's Application now. AppProjects
 * are not watched, so a wait on one looks again at Argo CD's pace, as the engine's state is.
 */
function projectWindow(look: RolloutLook, f: ReleaseFacts, syncWindows: unknown, recheckAfterMs: number): WindowNow {
  const app = f.intended;
  if (!app) return { open: true };
  const project = look.configuration.argocd.project;
  const source: WindowSource = {
    called: `the sync windows of Argo CD's AppProject ${project}`,
    field: `spec.syncWindows of AppProject ${project} (the chart's argocd.syncWindows)`,
  };
  const read = projectWindowsFor(syncWindows, { name: app.metadata.name, destination: app.spec.destination });
  if (!read.ok)
    return {
      open: false,
      why:
        `Argo CD refuses to sync Application ${app.metadata.name} while a sync window of AppProject ${project} it ` +
        `falls under is unreadable: ${read.problem}; fix ${source.field}`,
      recheckAfterMs,
    };
  const judged = windowNow(read.windows, f.now, source);
  return judged.open
    ? judged
    : { open: false, why: judged.why, recheckAfterMs: Math.min(recheckAfterMs, judged.recheckAfterMs) };
}

/**
 * SEC-5 at the moment it matters: a registry that cannot be asked holds the release, as an
 * unavailable Argo CD does.
 */
async function pinsOf(ctx: StepContext, look: RolloutLook, f: ReleaseFacts): Promise<PinsFact> {
  const { release } = f;
  if (!release) return { state: 'held' };
  const { registry } = look.configuration;
  const credentials = await pullCredentials({ kube: ctx.kube }, registry);
  if (!credentials.ok)
    return {
      state: 'unchecked',
      message:
        `the chart digests of release ${release.name} cannot be checked, so nothing is written for it yet: ` +
        `${credentials.message}`,
    };
  const checked = await checkPins(release, { dockerConfig: credentials.dockerConfig, plainHTTP: registry.plainHTTP });
  if (checked.state !== 'unchecked') return checked;
  return { state: 'unchecked', message: `${checked.message}; nothing is written for it until they can be` };
}

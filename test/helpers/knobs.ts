// Test knobs: the one way tests make the test cluster or its registry misbehave. Each acts only
// as a real node, scheduler, registry or Argo CD could (a cordon through the API, a pull the
// node fails or never finishes, an aicr run that fails or is slow, a registry that refuses or
// goes away, Argo CD's controller stopped), so the
// control plane sees it only through the API and the registry. Each returns a Knob whose
// undo() restores what it changed; all test files share one cluster, so a test undoes its
// knobs in a finally (or uses withKnob). Process-node and proxy knobs are control files
// (test/env/knobFiles.ts); the registry knobs act on its process.
import { randomUUID } from 'node:crypto';
import { access, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  AICR_RUN_SUFFIX,
  type ChartRepoKnob,
  type DenialScope,
  type NodeKnob,
  type UpgradeCheckKnob,
  aicrRunFile,
  knobPaths,
} from '../env/knobFiles.ts';
import { testEnv } from '../../harness/env.ts';
import { core } from './cluster.ts';
import { kubectl } from '../../harness/runtime.ts';
import { schedulerSeesNoRoom } from './schedulerProbe.ts';
import { startRegistry, stopRegistryProcess } from './registryProcess.ts';
import { argoCdPodGone, argoCdReady } from './argocd.ts';

export interface Knob {
  /** Restores what the knob changed; safe to call more than once. */
  undo(): Promise<void>;
}

/** Runs `body` with the knob on and undoes it whatever happens. */
export async function withKnob<T>(knob: Promise<Knob>, body: () => Promise<T>): Promise<T> {
  const on = await knob;
  try {
    return await body();
  } finally {
    await on.undo();
  }
}

function once(action: () => Promise<void>): Knob {
  let done: Promise<void> | undefined;
  return { undo: () => (done ??= action()) };
}

const paths = () => knobPaths(testEnv().TESTENV_STATE);

/** Writes a control file whole: readers never see half of it. */
async function placeFile(file: string, content: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  const partial = join(dirname(file), `.${basename(file)}.${randomUUID()}.partial`);
  await writeFile(partial, content);
  await rename(partial, file);
  return file;
}

/**
 * Cordons every schedulable Node, as `kubectl cordon` does: new Pods stay Pending with the
 * scheduler's own Unschedulable reason; running Pods go on. Returns once the scheduler has
 * turned a probe Pod away. Undo uncordons exactly the Nodes it cordoned.
 */
export async function holdPodsPending(): Promise<Knob> {
  const nodes = (await core().listNode()).items
    .filter((n) => n.spec?.unschedulable !== true)
    .map((n) => n.metadata?.name ?? '');
  const knob = once(async () => void (nodes.length > 0 && (await kubectl('uncordon', ...nodes))));
  if (nodes.length === 0) return knob;
  try {
    await kubectl('cordon', ...nodes);
    await schedulerSeesNoRoom();
  } catch (err) {
    await knob.undo();
    throw err;
  }
  return knob;
}

async function knobFile(dir: string, knob: NodeKnob | ChartRepoKnob): Promise<Knob> {
  const file = await placeFile(join(dir, `${Date.now()}-${randomUUID()}.json`), JSON.stringify(knob));
  return once(() => rm(file, { force: true }));
}

const nodeKnob = (knob: NodeKnob): Promise<Knob> => knobFile(paths().node, knob);

/**
 * Pulls of `image` by Pods started from now on fail as the kubelet reports a registry that no
 * longer has the image (`not-found`) or refuses the credential (`refused`, a 401):
 * ErrImagePull, then ImagePullBackOff.
 */
export function failPulls(image: string, cause: 'not-found' | 'refused' = 'not-found'): Promise<Knob> {
  return nodeKnob({ kind: 'pull-failure', image, cause });
}

/** Pods started from now on (only those with a container of `image`, when given) stay in ContainerCreating for `delayMs`, as on a slow pull. */
export function slowPulls(delayMs: number, image?: string): Promise<Knob> {
  return nodeKnob({ kind: 'slow-start', delayMs, ...(image === undefined ? {} : { image }) });
}

/** The aicr CLI's commands, as the first word after `aicr` (and its global flags). */
export type AicrCommand =
  'snapshot' | 'recipe' | 'query' | 'bundle' | 'verify' | 'validate' | 'trust' | 'upgrade-check';

export interface AicrRunKnob extends Knob {
  /** How many of the forced runs no aicr run has used yet. */
  pending(): Promise<number>;
}

export interface AicrRunOptions {
  /** How many runs it applies to, each used once; 1 when absent. */
  readonly times?: number;
  /** A delay before the run does anything else. */
  readonly delayMs?: number;
}

let sequence = 0;

async function aicrRuns(command: AicrCommand, content: string, times: number): Promise<AicrRunKnob> {
  const dir = paths().aicrRuns;
  const stem = `${command}.${String(Date.now()).padStart(15, '0')}-${String(sequence++).padStart(6, '0')}`;
  const files = await Promise.all(
    Array.from({ length: times }, (_, i) => placeFile(join(dir, `${stem}-${i}${AICR_RUN_SUFFIX}`), content)),
  );
  const pending = async (): Promise<number> => {
    const names = new Set(await readdir(dir).catch(() => [] as string[]));
    return files.filter((f) => names.has(f.slice(dir.length + 1))).length;
  };
  return { ...once(async () => void (await Promise.all(files.map((f) => rm(f, { force: true }))))), pending };
}

/**
 * The next `aicr <command>` run (or the next `times`) in a container of the AICR image started
 * from now on, in any Job, prints `stderr` and exits with `exitCode` instead of running. For
 * "the next aicr recipe exits 6 with this stderr": forceAicrExit('recipe', 6, 'error: …\n').
 */
export function forceAicrExit(
  command: AicrCommand,
  exitCode: number,
  stderr: string,
  opts: AicrRunOptions = {},
): Promise<AicrRunKnob> {
  return aicrRuns(command, aicrRunFile(command, opts.delayMs ?? 0, { code: exitCode, stderr }), opts.times ?? 1);
}

/** The next `aicr <command>` run (or the next `times`) waits `delayMs`, then runs the real aicr. */
export function slowAicr(
  command: AicrCommand,
  delayMs: number,
  opts: Pick<AicrRunOptions, 'times'> = {},
): Promise<AicrRunKnob> {
  return aicrRuns(command, aicrRunFile(command, delayMs, undefined), opts.times ?? 1);
}

/**
 * The stand-in `aicr upgrade-check` (testenv.aicr.local/aicr-upgrade-check) gives these
 * verdicts to the named components when they changed between the two recipes, from its next
 * run on; other changed components stay `safe`. One steering at a time; undo returns to all safe.
 */
export async function steerUpgradeCheck(verdicts: UpgradeCheckKnob['verdicts']): Promise<Knob> {
  const { upgradeCheck } = paths();
  await placeFile(upgradeCheck, JSON.stringify({ verdicts }));
  return once(() => rm(upgradeCheck, { force: true }));
}

export const DEFAULT_DENIAL = 'requested access to the resource is denied by policy (test knob)';

/**
 * The registry, as reached through TESTENV_REGISTRY_PROXY, answers authenticated repository
 * requests in `scope` with 403 and an OCI error body {"errors":[{"code":"DENIED","message"}]}.
 * The registry's own address is not affected. One denial at a time.
 */
export async function denyRegistry(opts: { scope?: DenialScope; message?: string } = {}): Promise<Knob> {
  const { registryDenial } = paths();
  const inForce = await access(registryDenial).then(
    () => true,
    () => false,
  );
  if (inForce) throw new Error(`a registry denial is already in force (${registryDenial})`);
  await placeFile(
    registryDenial,
    JSON.stringify({ scope: opts.scope ?? 'all', message: opts.message ?? DEFAULT_DENIAL }),
  );
  return once(() => rm(registryDenial, { force: true }));
}

/**
 * Stops the registry process: its address refuses connections (the proxy answers 502). Undo
 * starts it again on the same address with the same storage, so what was pushed is kept.
 */
export async function stopRegistry(): Promise<Knob> {
  await stopRegistryProcess();
  return once(startRegistry);
}

/**
 * Pods in these namespaces (a release's destination, `ns-<release>` in the rollout tests) stay
 * in ContainerCreating until undone, as on a node whose pulls hang: Argo CD syncs the release
 * and reports it Progressing, so its step stays in flight. Undone, the Pods start and Argo CD
 * reports it Healthy.
 */
export async function holdReleasePods(namespaces: readonly string[]): Promise<Knob> {
  const knobs = await Promise.all(namespaces.map((namespace) => nodeKnob({ kind: 'hold', namespace })));
  return once(async () => void (await Promise.all(knobs.map((k) => k.undo()))));
}

/**
 * Stops Argo CD as an operator would: scales its application controller's StatefulSet to 0 and
 * waits until the Pod is gone, so nothing writes Application status. Undo scales it back to 1
 * and waits until it is ready.
 */
export async function stopArgoCd(): Promise<Knob> {
  const scale = (n: number): Promise<string> =>
    kubectl('-n', 'argocd', 'scale', 'statefulset/argocd-application-controller', `--replicas=${n}`);
  const knob = once(async () => {
    await scale(1);
    await argoCdReady();
  });
  await scale(0);
  await argoCdPodGone();
  return knob;
}

/**
 * The fixture chart repository (TESTENV_CHART_REPO, standing in for the upstream repositories
 * AICR's recipes name) lacks `chart` at `version`: its index leaves it out and its archive is a 404.
 */
export function hideChartVersion(chart: string, version: string): Promise<Knob> {
  return knobFile(paths().chartRepo, { kind: 'hide', chart, version });
}

/** The fixture chart repository drops every connection unanswered, as a repository out of reach does. */
export function chartRepoOutage(): Promise<Knob> {
  return knobFile(paths().chartRepo, { kind: 'outage' });
}

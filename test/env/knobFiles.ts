// TEST KNOBS: control files in the environment's state directory through which tests make the
// stand-ins misbehave the way a real node or registry can (test/helpers/knobs.ts writes them).
// The process node reads them each time it starts a Pod or a container, the registry proxy and
// the fixture chart repository on each request, so a knob takes effect at once and is undone
// by removing its file. Nothing here is part of the product, and the control plane never reads
// these files.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export interface KnobPaths {
  readonly root: string;
  /** The registry proxy answers 403 while this file exists. */
  readonly registryDenial: string;
  /** One JSON file per process-node knob (pull failures, slow starts). */
  readonly node: string;
  /** One file per forced `aicr` run, claimed by the run that uses it. */
  readonly aicrRuns: string;
  /** The verdicts the stand-in `aicr upgrade-check` gives, while this file exists. */
  readonly upgradeCheck: string;
  /** One JSON file per fixture chart repository knob (a hidden chart version, an outage). */
  readonly chartRepo: string;
  /**
   * The AICR `--data` overlay up.sh makes (test configuration, never the product's): while it
   * holds a registry.yaml, `aicr recipe`, `bundle` and `query` in Jobs run with `--data` on it.
   */
  readonly aicrData: string;
}

export function knobPaths(stateDir: string): KnobPaths {
  const root = join(stateDir, 'test-knobs');
  return {
    root,
    registryDenial: join(root, 'registry-denial.json'),
    node: join(root, 'node'),
    aicrRuns: join(root, 'aicr-runs'),
    upgradeCheck: join(root, 'upgrade-check.json'),
    chartRepo: join(root, 'chart-repo'),
    aicrData: join(stateDir, 'aicr-data'),
  };
}

/** Which requests a denying registry refuses: writes (push), reads (pull) or both. */
export const DenialScope = z.enum(['all', 'push', 'pull']);
export type DenialScope = z.infer<typeof DenialScope>;

export const RegistryDenial = z.object({ scope: DenialScope, message: z.string() });
export type RegistryDenial = z.infer<typeof RegistryDenial>;

export const NodeKnob = z.discriminatedUnion('kind', [
  /** Pulls of this image fail as if the registry no longer had it, or refused the credential. */
  z.object({ kind: z.literal('pull-failure'), image: z.string(), cause: z.enum(['not-found', 'refused']) }),
  /** Containers of this image (any, when absent) wait this long in ContainerCreating, as on a slow pull. */
  z.object({ kind: z.literal('slow-start'), image: z.string().optional(), delayMs: z.number().int().nonnegative() }),
  /**
   * Pods in this namespace stay in ContainerCreating for as long as the knob is in force, as on
   * a node whose pulls hang: a release deployed there stays Progressing in Argo CD's eyes.
   */
  z.object({ kind: z.literal('hold'), namespace: z.string() }),
]);
export type NodeKnob = z.infer<typeof NodeKnob>;

/** The JSON knobs of one directory in force now; a file being written or malformed is skipped. */
async function readKnobDir<T>(dir: string, schema: z.ZodType<T>): Promise<T[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const knobs: T[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const text = await readFile(join(dir, name), 'utf8').catch(() => '');
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      if (parsed.success) knobs.push(parsed.data);
    } catch {
      // not complete yet
    }
  }
  return knobs;
}

/** The process-node knobs in force now. */
export function readNodeKnobs(paths: KnobPaths): Promise<NodeKnob[]> {
  return readKnobDir(paths.node, NodeKnob);
}

export const ChartRepoKnob = z.discriminatedUnion('kind', [
  /** The fixture chart repository lacks this version of this chart: not in its index, its archive 404. */
  z.object({ kind: z.literal('hide'), chart: z.string(), version: z.string() }),
  /** The fixture chart repository drops every connection, as a repository out of reach does. */
  z.object({ kind: z.literal('outage') }),
]);
export type ChartRepoKnob = z.infer<typeof ChartRepoKnob>;

export function readChartRepoKnobs(paths: KnobPaths): Promise<ChartRepoKnob[]> {
  return readKnobDir(paths.chartRepo, ChartRepoKnob);
}

/**
 * A forced `aicr` run, one file each: `<command>.<sequence>.run`. Its first line is the delay
 * in seconds before anything happens, its second the exit code (empty: run the real aicr
 * after the delay), and the rest the text printed on stderr. The wrapper (node/aicr-knob)
 * claims a file by renaming it, so each is used by exactly one run.
 */
export function aicrRunFile(
  command: string,
  delayMs: number,
  exit: { code: number; stderr: string } | undefined,
): string {
  return [(delayMs / 1000).toFixed(3), exit ? String(exit.code) : '', exit?.stderr ?? ''].join('\n');
}

export const AICR_RUN_SUFFIX = '.run';

/** upgrade-check's verdicts, as the stand-in may be steered to give them. */
export const UpgradeCheckVerdict = z.enum(['safe', 'manual', 'blocked', 'unknown', 'unversioned']);
export type UpgradeCheckVerdict = z.infer<typeof UpgradeCheckVerdict>;

/**
 * Component name → the verdict (and reason code) the stand-in `aicr upgrade-check` gives it
 * when it changed between the two recipes; a changed component not named here is `safe`.
 */
export const UpgradeCheckKnob = z.object({
  verdicts: z.record(z.string(), z.object({ verdict: UpgradeCheckVerdict, reason: z.string().optional() })),
});
export type UpgradeCheckKnob = z.infer<typeof UpgradeCheckKnob>;

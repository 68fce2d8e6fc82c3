// `kubectl aicr describe`: the runtime (its conditions, plans and the rollout in progress) or one
// rollout (./rolloutView.ts). Human text by default; -o json|yaml prints the objects. A manual
// release's recorded steps live on its owned Application, so describe reads that too while the
// release awaits acknowledgement.
import { stringify } from 'yaml';
import { ANNOTATION, CONDITION, KINDS, NAMESPACES, RUNTIME_NAME } from '../shared/api/constants.ts';
import { parseRollout, type RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';
import { guideOf } from '../shared/status/reasonTable.ts';
import type { Output } from './args.ts';
import { type Kubectl, KubectlError, getJson, listJson } from './kubectl.ts';
import { AWAITING, type RecordedSteps, describeRollout, inFlight, table } from './rolloutView.ts';
import { windowLine } from './windowView.ts';

export { describeRollout } from './rolloutView.ts';

export class NotFound extends Error {}

type Conditions = readonly { type: string; status: string; reason: string; message: string }[];

function conditionsOf(obj: Record<string, unknown>): Conditions {
  return (obj['status'] as { conditions?: Conditions } | undefined)?.conditions ?? [];
}

/** The recorded steps of the release the rollout waits at, when it waits at one. */
async function recordedSteps(k: Kubectl, r: RolloutObject): Promise<RecordedSteps | undefined> {
  const f = inFlight(r);
  if (f?.status.state !== AWAITING) return undefined;
  try {
    const app = await getJson(k, 'applications.argoproj.io', f.spec.release, NAMESPACES.argocd);
    if (!app) return { problem: 'it does not exist' };
    return parseSteps(
      (app['metadata'] as { annotations?: Record<string, string> } | undefined)?.annotations?.[ANNOTATION.steps],
    );
  } catch (err) {
    if (err instanceof KubectlError) return { problem: err.stderr.trim().split('\n')[0] ?? 'kubectl failed' };
    throw err;
  }
}

export function parseSteps(text: string | undefined): RecordedSteps {
  if (text === undefined) return { steps: [] };
  try {
    const steps: unknown = JSON.parse(text);
    if (Array.isArray(steps) && steps.every((s) => typeof s === 'string')) return { steps };
  } catch {
    // Falls through to the same answer as any other annotation that is not a list of strings.
  }
  return { problem: `annotation ${ANNOTATION.steps} is not a JSON list of strings` };
}

/** Markdown links become "text (docs/troubleshooting.md#anchor)" so a terminal shows where to read on. */
function plain(markdown: string): string {
  return markdown.replace(
    /\[([^\]]+)\]\(([^)]+)\)/g,
    (_m, text: string, href: string) =>
      `${text} (${href.startsWith('#') ? `docs/troubleshooting.md${href}` : `docs/${href}`})`,
  );
}

/** The reason that explains the runtime now: Ready's, unless a stall names its own. */
function currentReason(conds: Conditions): string | undefined {
  const stalled = conds.find((c) => c.type === CONDITION.stalled && c.status === 'True');
  return stalled?.reason ?? conds.find((c) => c.type === CONDITION.ready)?.reason;
}

function explain(conds: Conditions): string[] {
  const reason = currentReason(conds);
  const g = reason === undefined ? undefined : guideOf(reason);
  if (!reason || !g) return [];
  return ['', `Reason:    ${reason}`, `Cause:     ${plain(g.cause)}`, `Fix:       ${plain(g.fix)}`];
}

export function describeRuntime(
  rt: Record<string, unknown>,
  live: RolloutObject | undefined,
  recorded: RecordedSteps | undefined,
  now: Date = new Date(),
): string {
  const status = (rt['status'] ?? {}) as Record<string, unknown>;
  const conds = conditionsOf(rt);
  const rows = [['TYPE', 'STATUS', 'REASON', 'MESSAGE'], ...conds.map((c) => [c.type, c.status, c.reason, c.message])];
  return [
    `Runtime:   ${RUNTIME_NAME}`,
    `Active:    ${String(status['activePlan'] ?? '-')}`,
    `Target:    ${String(status['targetPlan'] ?? '-')}`,
    `Windows:   ${windowLine(rt['spec'], now)}`,
    'Conditions:',
    table(rows),
    ...explain(conds),
    '',
    live ? describeRollout(live, recorded) : 'No rollout in progress.',
  ].join('\n');
}

function print(value: unknown, output: Output): string {
  return output === 'json' ? JSON.stringify(value, null, 2) : stringify(value);
}

async function rollout(k: Kubectl, name: string): Promise<Record<string, unknown>> {
  const obj = await getJson(k, KINDS.runtimeRollout.plural, name);
  if (!obj)
    throw new NotFound(`rollout ${name} does not exist; list them with kubectl get ${KINDS.runtimeRollout.plural}`);
  return obj;
}

async function describeOneRollout(k: Kubectl, name: string, output: Output): Promise<string> {
  const obj = await rollout(k, name);
  const parsed = parseRollout(obj);
  if (output !== 'human' || !parsed) return print(obj, output === 'human' ? 'yaml' : output);
  return describeRollout(parsed, await recordedSteps(k, parsed));
}

/** The rollout the arguments name, if they name one rather than the runtime. */
function rolloutNamed(positional: readonly string[]): string | undefined {
  const [first, second] = positional;
  if (first === 'rollout' || first === KINDS.runtimeRollout.singular || first === KINDS.runtimeRollout.plural)
    return second;
  const runtimeWords: readonly (string | undefined)[] = [
    undefined,
    RUNTIME_NAME,
    'runtime',
    KINDS.clusterRuntime.singular,
    KINDS.clusterRuntime.plural,
  ];
  return runtimeWords.includes(first) ? undefined : first;
}

/** The text (or document) describe prints for its arguments. */
export async function describe(k: Kubectl, positional: readonly string[], output: Output): Promise<string> {
  const name = rolloutNamed(positional);
  if (name) return describeOneRollout(k, name, output);
  const rt = await getJson(k, KINDS.clusterRuntime.plural, RUNTIME_NAME);
  if (!rt) throw new NotFound(`there is no ClusterRuntime ${RUNTIME_NAME}; create one first (see the README)`);
  const uid = (rt['metadata'] as { uid?: string }).uid;
  const rollouts = (await listJson(k, KINDS.runtimeRollout.plural))
    .map(parseRollout)
    .filter((r): r is RolloutObject => r !== undefined && r.spec.runtimeUID === uid);
  const live = rollouts.filter((r) => !r.status?.outcome).at(-1);
  if (output !== 'human') return print({ runtime: rt, rollout: live ?? null }, output);
  return describeRuntime(rt, live, live && (await recordedSteps(k, live)));
}

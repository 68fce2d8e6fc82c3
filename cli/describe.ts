// `kubectl aicr describe`: the runtime (its conditions, plans and the rollout in progress) or one
// rollout (its message, every step with verdict and state, the chart version change and the Helm
// values that change, and the approval). Human text by default; -o json|yaml prints the objects.
import { stringify } from 'yaml';
import { CONDITION, KINDS, RUNTIME_NAME } from '../shared/api/constants.ts';
import { parseRollout, type RolloutObject } from '../shared/rollouts/objects.ts';
import type { Output } from './args.ts';
import { type Kubectl, getJson, listJson } from './kubectl.ts';

export class NotFound extends Error {}

type Conditions = readonly { type: string; status: string; reason: string; message: string }[];

function conditionsOf(obj: Record<string, unknown>): Conditions {
  return ((obj['status'] as { conditions?: Conditions } | undefined)?.conditions ?? []);
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd()).join('\n');
}

function versionChange(s: RolloutObject['spec']['steps'][number]): string {
  if (s.fromVersion && s.toVersion) return s.fromVersion === s.toVersion ? s.toVersion : `${s.fromVersion} → ${s.toVersion}`;
  return s.toVersion ? `→ ${s.toVersion}` : `${s.fromVersion ?? ''} → (removed)`;
}

function valuesChange(s: RolloutObject['spec']['steps'][number]): string {
  const n = s.valuesChangedCount ?? 0;
  if (n === 0) return s.action === 'Upgrade' ? 'unchanged' : '-';
  const shown = (s.valuesChanged ?? []).join(', ');
  return `${n} changed: ${shown}${n > (s.valuesChanged ?? []).length ? ', …' : ''}`;
}

function approvalText(r: RolloutObject): string {
  const given = r.status?.approval;
  const recorded = r.spec.approval;
  if (recorded && (!given || given.approvedAt !== recorded.approvedAt)) return `recorded by ${recorded.approvedBy} at ${recorded.approvedAt}; the control plane has not answered yet`;
  if (given) return `${given.state} (${given.reason}): ${given.message}`;
  return `none recorded; approve with kubectl aicr approve ${r.metadata.name} before ${r.spec.deadline ?? 'its deadline'}`;
}

function stateText(r: RolloutObject): { state: string; message: string } {
  const stalled = r.status?.conditions?.find((c) => c.type === CONDITION.stalled);
  const ready = r.status?.conditions?.find((c) => c.type === CONDITION.ready);
  const state = stalled?.status === 'True' ? `Stalled (${stalled.reason})` : (ready?.reason ?? 'not yet reported');
  return { state, message: ready?.message ?? '' };
}

function stepRows(r: RolloutObject): string[][] {
  const state = new Map((r.status?.steps ?? []).map((s) => [s.release, s.state]));
  const rows = [['#', 'RELEASE', 'ACTION', 'VERDICT', 'STATE', 'CHART VERSION', 'HELM VALUES']];
  r.spec.steps.forEach((s, i) => rows.push([String(i + 1), s.release, s.action, s.verdict ?? 'unknown', state.get(s.release) ?? 'Pending', versionChange(s), valuesChange(s)]));
  return rows;
}

export function describeRollout(r: RolloutObject): string {
  const { state, message } = stateText(r);
  const whys = [...new Set(r.spec.steps.map((s) => s.why).filter((w) => w !== undefined))];
  return [
    `Rollout:   ${r.metadata.name}`,
    `Move:      ${r.spec.fromPlan ?? 'nothing'} → ${r.spec.toPlan}`,
    `Outcome:   ${r.status?.outcome ?? 'in progress'}`,
    `State:     ${state}`,
    `Message:   ${message}`,
    `Deadline:  ${r.spec.deadline ?? '-'}`,
    `Approval:  ${approvalText(r)}`,
    `Steps:`,
    table(stepRows(r)),
    ...(whys.length > 0 ? ['Why these verdicts:', ...whys.map((w) => `  ${w}`)] : []),
  ].join('\n');
}

function describeRuntime(rt: Record<string, unknown>, live: RolloutObject | undefined): string {
  const status = (rt['status'] ?? {}) as Record<string, unknown>;
  const rows = [['TYPE', 'STATUS', 'REASON', 'MESSAGE'], ...conditionsOf(rt).map((c) => [c.type, c.status, c.reason, c.message])];
  return [
    `Runtime:   ${RUNTIME_NAME}`,
    `Active:    ${String(status['activePlan'] ?? '-')}`,
    `Target:    ${String(status['targetPlan'] ?? '-')}`,
    'Conditions:',
    table(rows),
    '',
    live ? describeRollout(live) : 'No rollout in progress.',
  ].join('\n');
}

function print(value: unknown, output: Output): string {
  return output === 'json' ? JSON.stringify(value, null, 2) : stringify(value);
}

async function rollout(k: Kubectl, name: string): Promise<Record<string, unknown>> {
  const obj = await getJson(k, KINDS.runtimeRollout.plural, name);
  if (!obj) throw new NotFound(`rollout ${name} does not exist; list them with kubectl get ${KINDS.runtimeRollout.plural}`);
  return obj;
}

async function describeOneRollout(k: Kubectl, name: string, output: Output): Promise<string> {
  const obj = await rollout(k, name);
  const parsed = parseRollout(obj);
  if (output !== 'human' || !parsed) return print(obj, output === 'human' ? 'yaml' : output);
  return describeRollout(parsed);
}

/** The rollout the arguments name, if they name one rather than the runtime. */
function rolloutNamed(positional: readonly string[]): string | undefined {
  const [first, second] = positional;
  if (first === 'rollout' || first === KINDS.runtimeRollout.singular || first === KINDS.runtimeRollout.plural) return second;
  const runtimeWords: readonly (string | undefined)[] = [undefined, RUNTIME_NAME, 'runtime', KINDS.clusterRuntime.singular, KINDS.clusterRuntime.plural];
  return runtimeWords.includes(first) ? undefined : first;
}

/** The text (or document) describe prints for its arguments. */
export async function describe(k: Kubectl, positional: readonly string[], output: Output): Promise<string> {
  const name = rolloutNamed(positional);
  if (name) return describeOneRollout(k, name, output);
  const rt = await getJson(k, KINDS.clusterRuntime.plural, RUNTIME_NAME);
  if (!rt) throw new NotFound(`there is no ClusterRuntime ${RUNTIME_NAME}; create one first (see the README)`);
  const uid = (rt['metadata'] as { uid?: string }).uid;
  const rollouts = (await listJson(k, KINDS.runtimeRollout.plural)).map(parseRollout).filter((r): r is RolloutObject => r !== undefined && r.spec.runtimeUID === uid);
  const live = rollouts.filter((r) => !r.status?.outcome).at(-1);
  if (output !== 'human') return print({ runtime: rt, rollout: live ?? null }, output);
  return describeRuntime(rt, live);
}

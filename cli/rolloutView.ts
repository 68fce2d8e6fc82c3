// One rollout as `kubectl aicr describe` prints it: its message, every step with verdict, state
// (and why), start time, chart version change and Helm values that change, the step in flight,
// a manual release's recorded steps while it awaits acknowledgement, who acknowledged what, and
// a revocation or retry someone asked for.
// Pure text from the objects, so it is tested without a cluster.
import { CONDITION, NAMESPACES } from '../shared/api/constants.ts';
import { validationLines } from './validationView.ts';
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';

type SpecStep = RolloutObject['spec']['steps'][number];
type StatusStep = NonNullable<NonNullable<RolloutObject['status']>['steps']>[number];

/** The step state of a manual release whose recorded steps wait for a person. */
export const AWAITING = 'AwaitingAcknowledgement';

/** A manual release's recorded steps as read from its Application, or why they could not be read. */
export type RecordedSteps = { readonly steps: readonly string[] } | { readonly problem: string };

export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd()).join('\n');
}

function versionChange(s: SpecStep): string {
  if (s.fromVersion && s.toVersion)
    return s.fromVersion === s.toVersion ? s.toVersion : `${s.fromVersion} → ${s.toVersion}`;
  return s.toVersion ? `→ ${s.toVersion}` : `${s.fromVersion ?? ''} → (removed)`;
}

function valuesChange(s: SpecStep): string {
  const n = s.valuesChangedCount ?? 0;
  if (n === 0) return s.action === 'Upgrade' ? 'unchanged' : '-';
  const shown = (s.valuesChanged ?? []).join(', ');
  return `${n} changed: ${shown}${n > (s.valuesChanged ?? []).length ? ', …' : ''}`;
}

function approvalText(r: RolloutObject): string {
  const given = r.status?.approval;
  const recorded = r.spec.approval;
  if (recorded && (!given || given.approvedAt !== recorded.approvedAt))
    return `recorded by ${recorded.approvedBy} at ${recorded.approvedAt}; the control plane has not answered yet`;
  if (given) return `${given.state} (${given.reason}): ${given.message}`;
  return (
    `none recorded; approve with kubectl aicr approve ${r.metadata.name} before ` +
    `${r.spec.deadline ?? 'its deadline'}`
  );
}

function stateText(r: RolloutObject): { state: string; message: string } {
  const stalled = r.status?.conditions?.find((c) => c.type === CONDITION.stalled);
  const ready = r.status?.conditions?.find((c) => c.type === CONDITION.ready);
  const state = stalled?.status === 'True' ? `Stalled (${stalled.reason})` : (ready?.reason ?? 'not yet reported');
  return { state, message: ready?.message ?? '' };
}

const stepState = (s: StatusStep | undefined): string =>
  s ? `${s.state}${s.reason ? ` (${s.reason})` : ''}` : 'Pending';

function stepRows(r: RolloutObject): string[][] {
  const status = new Map((r.status?.steps ?? []).map((s) => [s.release, s]));
  const rows = [['#', 'RELEASE', 'ACTION', 'VERDICT', 'STATE', 'STARTED', 'CHART VERSION', 'HELM VALUES']];
  r.spec.steps.forEach((s, i) => {
    const st = status.get(s.release);
    rows.push([
      String(i + 1),
      s.release,
      s.action,
      s.verdict ?? 'unknown',
      stepState(st),
      st?.startedAt ?? '-',
      versionChange(s),
      valuesChange(s),
    ]);
  });
  return rows;
}

/** The first step the control plane is working on or waiting at, with its place in the rollout. */
export function inFlight(r: RolloutObject): { index: number; spec: SpecStep; status: StatusStep } | undefined {
  const status = new Map((r.status?.steps ?? []).map((s) => [s.release, s]));
  const index = r.spec.steps.findIndex((s) => ['InProgress', AWAITING].includes(status.get(s.release)?.state ?? ''));
  const spec = r.spec.steps[index];
  const st = spec && status.get(spec.release);
  return spec && st ? { index, spec, status: st } : undefined;
}

/** How to see a release's recorded steps without the plugin. */
export function recordedStepsCommand(release: string): string {
  return (
    `kubectl -n ${NAMESPACES.argocd} get application ${release} -o ` +
    "jsonpath='{.metadata.annotations.operator\\.aicr\\.run/steps}'"
  );
}

function recordedLines(r: RolloutObject, release: string, recorded: RecordedSteps | undefined): string[] {
  const hint = `Once they are done: kubectl aicr acknowledge ${r.metadata.name}`;
  if (!recorded || 'problem' in recorded) {
    const why = recorded?.problem ?? 'not read';
    return [
      `Recorded steps: cannot read Application ${NAMESPACES.argocd}/${release} (${why}); ` +
        `see them with ${recordedStepsCommand(release)}`,
      hint,
    ];
  }
  if (recorded.steps.length === 0)
    return [`Recorded steps: Application ${NAMESPACES.argocd}/${release} records none`, hint];
  return ['Recorded steps:', ...recorded.steps.map((s, i) => `  ${i + 1}. ${s}`), hint];
}

function flightLines(r: RolloutObject, recorded: RecordedSteps | undefined): string[] {
  const f = inFlight(r);
  if (!f) return [];
  const message = f.status.message ? `: ${f.status.message}` : '';
  const line = `In flight: ${f.index + 1} ${f.spec.release} (${f.spec.action}) ${f.status.state}${message}`;
  return f.status.state === AWAITING ? [line, ...recordedLines(r, f.spec.release, recorded)] : [line];
}

/** How it ended and why, in the Ready condition's reason: "Failed (RolloutFailed)". */
function outcomeText(r: RolloutObject): string {
  const outcome = r.status?.outcome;
  if (!outcome) return 'in progress';
  const reason = r.status?.conditions?.find((c) => c.type === CONDITION.ready)?.reason;
  return reason && reason !== outcome ? `${outcome} (${reason})` : outcome;
}

/** A person's revocation, retry or disruption request, as recorded. */
function requestLines(r: RolloutObject): string[] {
  const { revocation, retry, disruption } = r.spec;
  return [
    ...(disruption
      ? [
          `Disrupt:   allowed by ${disruption.approvedBy} at ${disruption.approvedAt}: ` +
            'steps do not wait for protected GPU work',
        ]
      : []),
    ...(revocation
      ? [
          `Revoked:   by ${revocation.revokedBy} at ${revocation.revokedAt}` +
            (revocation.reason ? `: ${revocation.reason}` : ''),
        ]
      : []),
    ...(retry
      ? [
          `Retry:     requested by ${retry.requestedBy} at ${retry.requestedAt}; ` +
            `the new rollout to ${r.spec.toPlan} replaces this one`,
        ]
      : []),
  ];
}

export function describeRollout(r: RolloutObject, recorded?: RecordedSteps): string {
  const { state, message } = stateText(r);
  const whys = [...new Set(r.spec.steps.map((s) => s.why).filter((w) => w !== undefined))];
  return [
    `Rollout:   ${r.metadata.name}`,
    `Move:      ${r.spec.fromPlan ?? 'nothing'} → ${r.spec.toPlan}`,
    `Outcome:   ${outcomeText(r)}`,
    ...requestLines(r),
    `State:     ${state}`,
    `Message:   ${message}`,
    `Deadline:  ${r.spec.deadline ?? '-'}`,
    `Approval:  ${approvalText(r)}`,
    ...flightLines(r, recorded),
    ...(r.spec.acknowledgements ?? []).map(
      (a) => `Acknowledged: ${a.release} by ${a.acknowledgedBy} at ${a.acknowledgedAt}`,
    ),
    `Steps:`,
    table(stepRows(r)),
    ...(whys.length > 0 ? ['Why these verdicts:', ...whys.map((w) => `  ${w}`)] : []),
    ...validationLines(r),
  ].join('\n');
}

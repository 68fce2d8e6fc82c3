// The rollout's deployment validation in `kubectl aicr describe`: whether it ran, its Job and
// AICR's run, where the CTRF report is, each check, and the evidence reference (which AICR
// v0.11.1 cannot produce, so describe says so rather than showing an empty field).
import { NAMESPACES } from '../shared/api/constants.ts';
import type { RolloutObject } from '../shared/rollout/rules/rolloutObject.ts';

const EVIDENCE_NEVER_PUSHED = 'none: AICR v0.11.1 cannot push validation evidence, so the reference stays empty';

export function validationLines(r: RolloutObject): string[] {
  const v = r.status?.validation;
  if (!v) return [`Validation: ${r.status?.outcome ? 'none recorded' : 'runs once every step is done'}`];
  if (v.state === 'Disabled')
    return [
      'Validation: Disabled (spec.validation.deployment: Disabled): ' +
        'skipped, so this rollout has no validation evidence',
    ];
  const report = v.report
    ? `kubectl get configmap ${v.report} -n ${NAMESPACES.validation} -o jsonpath='{.data.snapshot\\.json}'`
    : 'none yet';
  return [
    `Validation: ${v.state}${v.message ? `: ${v.message}` : ''}`,
    `  Job:      ${v.job ? `${v.job} in ${NAMESPACES.validation}` : '-'}`,
    `  Run:      ${v.runID ?? '-'}`,
    `  Report:   ${report}`,
    ...(v.checks ?? []).map((c) => `  Check:    ${c.name}: ${c.status}`),
    `  Evidence: ${v.evidence ? v.evidence : EVIDENCE_NEVER_PUSHED}`,
  ];
}

// AICR's upgrade-check verdicts in the rollout's terms (TRN-1): which AICR releases have the
// command, and what its verdict on one component means for the step that moves it.
import { AICR_UPGRADE_CHECK_SINCE } from '../../api/constants.ts';
import type { Judgement } from './assess.ts';

/** upgrade-check's per-component verdicts. */
export const COMPONENT_VERDICTS = ['safe', 'manual', 'blocked', 'unknown', 'unversioned'] as const;
export type ComponentVerdict = (typeof COMPONENT_VERDICTS)[number];

export interface ComponentAssessment {
  readonly verdict: ComponentVerdict;
  /** AICR's reason code, when it gave one. */
  readonly reason?: string;
}

/** Component name → its verdict. */
export type Verdicts = ReadonlyMap<string, ComponentAssessment>;

function versionParts(v: string): number[] {
  return v
    .replace(/^v/, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number(p) || 0);
}

/** Whether an AICR release has `upgrade-check`: the first one with it, or any later one. */
export function hasUpgradeCheck(version: string): boolean {
  const [a, b] = [versionParts(version), versionParts(AICR_UPGRADE_CHECK_SINCE)];
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

/** AICR's verdict on one component, in the rollout's terms (`unversioned` reads as `unknown`). */
export function judgementOf(verdicts: Verdicts, release: string): Judgement {
  const v = verdicts.get(release);
  if (!v) return { verdict: 'unknown', why: 'aicr upgrade-check gave no verdict for it, so it needs approval' };
  const reason = v.reason ? ` (${v.reason})` : '';
  switch (v.verdict) {
    case 'safe':
      return { verdict: 'safe', why: `aicr upgrade-check assessed it safe${reason}` };
    case 'manual':
      return { verdict: 'manual', why: `aicr upgrade-check says it needs operator steps${reason}` };
    case 'blocked':
      return { verdict: 'blocked', why: `aicr upgrade-check assessed it blocked${reason}` };
    default:
      return { verdict: 'unknown', why: `aicr upgrade-check assessed it ${v.verdict}${reason}, so it needs approval` };
  }
}

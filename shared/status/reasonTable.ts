// The reasons table of docs/troubleshooting.md, built from REASON_GUIDE and the class each reason
// has in REASONS, so the doc cannot drift from the code (scripts/gen-docs.ts writes it).
import { REASON_GUIDE, type ReasonGuide } from './reasonGuide.ts';
import { REASON_CLASS, type ReasonClass, SUMMARY_REASON, reasonRow } from '../api/reasons.ts';
import { markdownTableIn } from './markdownTable.ts';

export const REASON_TABLE_HEADER = '| reason | on | class | cause | fix |';

const CLASS_WORDS: Readonly<Record<ReasonClass, string>> = {
  [REASON_CLASS.healthy]: 'healthy',
  [REASON_CLASS.progressing]: 'in progress',
  [REASON_CLASS.stalledWaiting]: 'stalled, waiting for a person',
  [REASON_CLASS.stalledRetrying]: 'stalled, retries by itself',
};

/** Summary reasons are not in REASONS: the summary conditions derive them, never a step. */
const SUMMARY_CLASS: Readonly<Record<string, ReasonClass>> = {
  [SUMMARY_REASON.ready]: REASON_CLASS.healthy,
  [SUMMARY_REASON.notStalled]: REASON_CLASS.healthy,
  [SUMMARY_REASON.idle]: REASON_CLASS.healthy,
  [SUMMARY_REASON.noStatusYet]: REASON_CLASS.progressing,
  [SUMMARY_REASON.newGeneration]: REASON_CLASS.progressing,
};

function classOf(reason: string): ReasonClass | undefined {
  return reasonRow(reason)?.class ?? SUMMARY_CLASS[reason];
}

export function guideOf(reason: string): ReasonGuide | undefined {
  return Object.hasOwn(REASON_GUIDE, reason) ? REASON_GUIDE[reason as keyof typeof REASON_GUIDE] : undefined;
}

/** The whole markdown table, header included, one row per reason in REASON_GUIDE's order. */
export function reasonTable(): string {
  const rows = Object.entries(REASON_GUIDE).map(([reason, g]) => {
    const cls = classOf(reason);
    if (!cls) throw new Error(`reason ${reason} has a guide entry but no class; add it to shared/api/reasons.ts`);
    return `| \`${reason}\` | ${g.on} | ${CLASS_WORDS[cls]} | ${g.cause} | ${g.fix} |`;
  });
  return [REASON_TABLE_HEADER, '|---|---|---|---|---|', ...rows].join('\n');
}

/** The table as it stands in a document: from its header to the first line that is not a row. */
export function tableIn(doc: string): { start: number; end: number } | undefined {
  return markdownTableIn(doc, REASON_TABLE_HEADER);
}

// The owners table of docs/conditions.md, from the step table: which step writes each condition
// and under which field manager. `npm run gen:docs` writes it; a unit test fails when it is stale.
import { DOMAIN_CONDITIONS, FIELD_MANAGER, SUMMARY_CONDITIONS } from '../api/constants.ts';
import { STEP_TABLE, type StepRow } from './table.ts';
import { markdownTableIn } from '../status/markdownTable.ts';

export const OWNER_TABLE_HEADER = '| condition | written by | field manager |';

export function ownerTable(table: readonly StepRow[] = STEP_TABLE): string {
  const rows = DOMAIN_CONDITIONS.map((type) => {
    const owner = table.find((r) => (r.owns as readonly string[]).includes(type));
    return owner
      ? `| \`${type}\` | ${owner.name} step | \`${owner.fieldManager}\` |`
      : `| \`${type}\` | no step yet | |`;
  });
  const summary =
    `| ${SUMMARY_CONDITIONS.map((t) => `\`${t}\``).join(', ')} | summary, with the writing step's own conditions ` +
    `| that step's; \`${FIELD_MANAGER.summary}\` for a step with none |`;
  return [OWNER_TABLE_HEADER, '|---|---|---|', ...rows, summary].join('\n');
}

/** Where the owners table sits in a document: its header line and the table lines after it. */
export function ownerTableIn(doc: string): { start: number; end: number } | undefined {
  return markdownTableIn(doc, OWNER_TABLE_HEADER);
}

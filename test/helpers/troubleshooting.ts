// The troubleshooting guide as tests read it: its `###` entries by anchor, and the entry each
// stalling reason's row links to.
import { readFileSync } from 'node:fs';
import { REASONS, isStalledClass } from '../../shared/api/reasons.ts';

export const TROUBLESHOOTING = readFileSync(new URL('../../docs/troubleshooting.md', import.meta.url), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
export function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

/** Each `###` entry's text, heading included (it is often where the reason is named), by its anchor. */
export function entries(doc = TROUBLESHOOTING): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of doc.split(/^### /m).slice(1)) {
    const [heading = '', ...body] = part.split('\n');
    out.set(anchor(heading), `${heading}\n${body.join('\n').split(/^## /m)[0] ?? ''}`);
  }
  return out;
}

export interface StallEntry {
  readonly reason: string;
  readonly link: string | undefined;
  readonly entry: string | undefined;
}

/** Every reason that stalls a runtime, with the entry its row links to. */
export function stallEntries(doc = TROUBLESHOOTING): StallEntry[] {
  const byAnchor = entries(doc);
  return Object.entries(REASONS)
    .filter(([, row]) => isStalledClass(row.class))
    .map(([reason]) => {
      const line = doc.split('\n').find((l) => l.startsWith(`| \`${reason}\` |`)) ?? '';
      const link = /\[entry\]\(#([a-z0-9-]+)\)/.exec(line)?.[1];
      return { reason, link, entry: link ? byAnchor.get(link) : undefined };
    });
}

/** The commands of an entry's code blocks, a line continued with `\` joined to the next. */
export function codeCommands(entry: string): string[] {
  const blocks = [...entry.matchAll(/```(?:sh|bash|console)?\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  return blocks.flatMap((b) =>
    b
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#')),
  );
}

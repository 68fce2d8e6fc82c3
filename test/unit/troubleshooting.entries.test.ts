// KROP-1: the troubleshooting guide is written symptom → cause → fix with concrete kubectl checks.
// Every reason that stalls a runtime links from its row to an entry, and that entry says the
// cause, the fix and at least one kubectl command to check with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REASONS, isStalledClass } from '../../shared/status/reasons.ts';

const doc = readFileSync(new URL('../../docs/troubleshooting.md', import.meta.url), 'utf8');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-');
}

/** Each `###` entry's text by its anchor. */
function entries(): Map<string, string> {
  const out = new Map<string, string>();
  const parts = doc.split(/^### /m).slice(1);
  for (const part of parts) {
    const [heading = '', ...body] = part.split('\n');
    out.set(anchor(heading), body.join('\n').split(/^## /m)[0] ?? '');
  }
  return out;
}

test('KROP-1 every reason that stalls a runtime links to an entry that gives its cause, its fix and a kubectl check', () => {
  const byAnchor = entries();
  const problems: string[] = [];
  for (const [reason, row] of Object.entries(REASONS)) {
    // Healthy and progressing reasons need nobody; every stall has an entry.
    if (!isStalledClass(row.class)) continue;
    const line = doc.split('\n').find((l) => l.startsWith(`| \`${reason}\` |`)) ?? '';
    const link = /\[entry\]\(#([a-z0-9-]+)\)/.exec(line)?.[1];
    const entry = link ? byAnchor.get(link) : undefined;
    if (!entry) {
      problems.push(`${reason}: its row links to no entry (${link ?? 'no link'})`);
      continue;
    }
    for (const [what, pattern] of [['a cause', /\*\*?Cause|\*Cause/], ['a fix', /\*\*?Fix|\*Fix/], ['a kubectl check', /kubectl /]] as const) {
      if (!pattern.test(entry)) problems.push(`${reason}: entry #${link} has no ${what}`);
    }
  }
  assert.deepEqual(problems, []);
});

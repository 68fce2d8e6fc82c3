// KROP-2: every reason a runtime can show is in the troubleshooting table, with its cause and fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DOMAIN_CONDITIONS } from '../../shared/api/constants.ts';
import { REASONS, SUMMARY_REASON } from '../../shared/api/reasons.ts';
import { REASON_GUIDE } from '../../shared/status/reasonGuide.ts';
import { reasonTable, tableIn } from '../../shared/status/reasonTable.ts';

const doc = readFileSync(new URL('../../docs/troubleshooting.md', import.meta.url), 'utf8');
const rows = doc.split('\n').filter((l) => /^\| `[A-Za-z]+` \|/.test(l));
const documented = rows.map((l) => /^\| `([A-Za-z]+)` \|/.exec(l)?.[1]);

test('KROP-2 every reason in the table of reasons has exactly one troubleshooting row with a cause and a fix', () => {
  const all = [...Object.keys(REASONS), ...Object.values(SUMMARY_REASON)];
  for (const reason of all) {
    const found = rows.filter((l) => l.startsWith(`| \`${reason}\` |`));
    assert.equal(found.length, 1, `${reason} has one row in docs/troubleshooting.md`);
    const cells = found[0]?.split(' | ') ?? [];
    assert.ok(
      cells.length >= 5 && cells.every((c) => c.trim().length > 0),
      `${reason}: reason, condition, class, cause and fix`,
    );
  }
  assert.deepEqual(
    documented.filter((r) => r && !all.includes(r)),
    [],
    'no row for a reason the code cannot write',
  );
});

test('KROP-2 each reason names only domain conditions, and the doc row names one of them', () => {
  for (const [reason, row] of Object.entries(REASONS)) {
    for (const c of row.on) assert.ok((DOMAIN_CONDITIONS as readonly string[]).includes(c), `${reason} on ${c}`);
    const line = rows.find((l) => l.startsWith(`| \`${reason}\` |`)) ?? '';
    assert.ok(
      row.on.some((c) => line.includes(c)),
      `${reason}'s row names ${row.on.join(' or ')}`,
    );
  }
});

test('KROP-2 the reasons table in the docs is the one generated from the reason guide (npm run gen:docs)', () => {
  const at = tableIn(doc);
  assert.ok(at, 'docs/troubleshooting.md has the reasons table header');
  assert.equal(
    doc.split('\n').slice(at.start, at.end).join('\n'),
    reasonTable(),
    'run npm run gen:docs after editing shared/status/reasonGuide.ts',
  );
});

test('KROP-2 every reason has a guide entry, and the guide has no reason the code cannot write', () => {
  const all = [...Object.keys(REASONS), ...Object.values(SUMMARY_REASON)].sort();
  assert.deepEqual(Object.keys(REASON_GUIDE).sort(), all);
});

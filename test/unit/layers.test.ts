// The layers of shared/ are written down twice, as the Layout table of docs/architecture.md for
// people and as layers.cjs for the import rules; both must say what shared/ holds, or the lint
// would hold a layering nobody reads (or a module no rule holds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as z from 'zod';

const LayersSchema = z.array(z.object({ floor: z.string().min(1), parts: z.array(z.string().min(1)).min(1) }));
type Layer = z.infer<typeof LayersSchema>[number];

const layers = LayersSchema.parse(createRequire(import.meta.url)('../../layers.cjs'));
const TABLE_HEADER = '| folder | floor | what it holds |';

/** The Layout table's rows, in order: the parts each names (in backticks) and its floor. */
function layoutTable(): Layer[] {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
  const lines = doc.slice(doc.indexOf('\n## Layout\n')).split('\n');
  const header = lines.indexOf(TABLE_HEADER);
  assert.ok(header >= 0, `docs/architecture.md's Layout section has a table headed ${TABLE_HEADER}`);
  const rows: Layer[] = [];
  // The header's next line is the separator; the table ends at the first line that is not a row.
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [, parts = '', floor = ''] = line.split('|').map((cell) => cell.trim());
    rows.push({ floor, parts: [...parts.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '') });
  }
  return rows;
}

/** What shared/ holds at its top: each folder as `name/`, each module as `name.ts`. */
function sharedTop(): string[] {
  return readdirSync(new URL('../../shared/', import.meta.url), { withFileTypes: true })
    .filter((e) => e.isDirectory() || e.name.endsWith('.ts'))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
}

test("docs/architecture.md's Layout table shows the layers the import rules are made from, row for row", () => {
  assert.deepEqual(layoutTable(), layers);
});

test('every folder and top-level module of shared/ is in exactly one layer', () => {
  for (const part of sharedTop()) {
    const holding = layers.filter((l) => l.parts.includes(part));
    assert.equal(holding.length, 1, `${part} is in one layer of layers.cjs`);
  }
  const named = layers.flatMap((l) => l.parts);
  assert.deepEqual(
    named.filter((part, i) => named.indexOf(part) !== i),
    [],
    'no part is named twice',
  );
});

test('every top-level module a layer names exists', () => {
  // A folder may be named before it is made (a wing being moved in); a module named but gone
  // leaves a rule that holds nothing.
  const top = sharedTop();
  const modules = layers.flatMap((l) => l.parts).filter((part) => !part.endsWith('/'));
  assert.deepEqual(
    modules.filter((m) => !top.includes(m)),
    [],
    'every module named is in shared/',
  );
});

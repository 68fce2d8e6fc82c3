// The newcomer map (docs/behaviours.md) checked against the test titles and the tree, so it
// cannot go stale. Plain text parsing: a test title is the first string argument of a test
// call; a map row is a table line starting with a behaviour ID.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAP = 'docs/behaviours.md';

/** Every behaviour ID of the catalogue, in its order (the catalogue itself is kept outside this repository). */
const CATALOGUE = [
  ...['COND-1', 'COND-2', 'COND-3', 'COND-4', 'COND-5'],
  ...['DISC-1', 'DISC-2', 'DISC-3'],
  ...['JOB-1', 'JOB-2', 'JOB-3', 'JOB-4', 'JOB-5', 'JOB-6', 'JOB-7', 'JOB-8', 'JOB-9'],
  ...['REG-1', 'REG-2', 'REG-3', 'REG-4', 'REG-5'],
  'VER-1',
  ...['ENG-1', 'ENG-2'],
  ...['APR-1', 'APR-2', 'APR-3'],
  'TRN-1',
  ...['ROL-1', 'ROL-2', 'ROL-3', 'ROL-4', 'ROL-5', 'ROL-6', 'ROL-7', 'ROL-8'],
  ...['VAL-1', 'VAL-2', 'VAL-3', 'VAL-4', 'VAL-5'],
  'NS-1',
  ...['PLAN-1', 'PLAN-2', 'PLAN-3', 'PLAN-4', 'PLAN-5', 'PLAN-6', 'PLAN-7', 'PLAN-8'],
  ...['FIN-1', 'FIN-2', 'FIN-3', 'FIN-4', 'FIN-5'],
  ...['ADO-1', 'ADO-2', 'ADO-3', 'ADO-4', 'ADO-5'],
  ...['OBS-1', 'OBS-2', 'OBS-3'],
  ...['KROP-1', 'KROP-2', 'KROP-3', 'KROP-4'],
  ...['SEC-1', 'SEC-2', 'SEC-3', 'SEC-4', 'SEC-5', 'SEC-6', 'SEC-7', 'SEC-8', 'SEC-9', 'SEC-10', 'SEC-11'],
  ...['STL-1', 'STL-2'],
  ...['WIN-1', 'WIN-2', 'WIN-3'],
  ...['GPU-1', 'GPU-2'],
  ...['NTF-1', 'NTF-2'],
  ...['FLT-1', 'FLT-2'],
] as const;

const NOT_BUILT = 'not built yet';
const NO_TESTS = 'none yet';

/** IDs of the catalogue's families only, so a title mentioning e.g. UTF-8 is not taken for one. */
const FAMILIES = [...new Set(CATALOGUE.map((id) => id.split('-')[0]))];
const ID = new RegExp(`\\b(?:${FAMILIES.join('|')})-\\d+\\b`, 'g');
/** The first string argument of a test call: single-, double- or back-quoted. */
const TITLE =
  /(?<![\w$.])test(?:\.(?:only|skip|todo))?\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/g;
const ROW = /^\|\s*([A-Z]+-\d+)\s*\|/;

interface MapRow {
  readonly line: number;
  readonly id: string;
  readonly cells: readonly string[];
}

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** Every test file under test/, as a repository path with forward slashes. */
function testFiles(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.test.ts'))
    .map((p) => p.split(sep))
    .filter((parts) => !parts.some((part) => part === 'node_modules' || part.startsWith('.')))
    .map((parts) => ['test', ...parts].join('/'))
    .sort();
}

function titlesOf(source: string): string[] {
  const code = source.replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(TITLE)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

function idsIn(text: string): string[] {
  return [...new Set(text.match(ID) ?? [])];
}

/** Behaviour ID → the test files with a test title that names it. */
function namedByTests(): Map<string, Set<string>> {
  const named = new Map<string, Set<string>>();
  for (const file of testFiles()) {
    for (const id of titlesOf(read(file)).flatMap(idsIn)) {
      const files = named.get(id) ?? new Set<string>();
      files.add(file);
      named.set(id, files);
    }
  }
  return named;
}

function mapRows(): MapRow[] {
  return read(MAP)
    .split('\n')
    .flatMap((text, i) => {
      const id = ROW.exec(text)?.[1];
      if (!id) return [];
      const cells = text
        .trim()
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((c) => c.trim());
      return [{ line: i + 1, id, cells }];
    });
}

function where(row: MapRow): string {
  return `${MAP}:${row.line} (row ${row.id})`;
}

function backticked(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

function codeCell(row: MapRow): string {
  return row.cells[2] ?? '';
}

function testsCell(row: MapRow): string {
  return row.cells[3] ?? '';
}

function fail(problems: readonly string[]): void {
  assert.equal(problems.length, 0, `${problems.length} problem(s) in ${MAP}:\n- ${problems.join('\n- ')}`);
}

const rows = mapRows();
const catalogue: readonly string[] = CATALOGUE;

test('the catalogue list has no duplicate IDs', () => {
  assert.deepEqual(
    catalogue.filter((id, i) => catalogue.indexOf(id) !== i),
    [],
  );
});

test('the map has exactly one well-formed row per catalogue behaviour and no other rows', () => {
  const problems: string[] = [];
  for (const id of catalogue) {
    const found = rows.filter((r) => r.id === id);
    if (found.length === 0)
      problems.push(
        `${id} has no row: add "| ${id} | <rule> | <code paths or ${NOT_BUILT}> | <test files or ${NO_TESTS}> |"`,
      );
    if (found.length > 1)
      problems.push(`${id} has ${found.length} rows (lines ${found.map((r) => r.line).join(', ')}): keep one`);
  }
  for (const row of rows) {
    if (!catalogue.includes(row.id))
      problems.push(
        `${where(row)}: ${row.id} is not a catalogue ID: remove the row, or add the ID to CATALOGUE in test/unit/behaviours.map.test.ts`,
      );
    if (row.cells.length !== 4)
      problems.push(
        `${where(row)}: has ${row.cells.length} cells, wants 4 (ID, rule, code, tests); a "|" inside a cell splits it`,
      );
    else if (row.cells.some((c) => c.length === 0))
      problems.push(
        `${where(row)}: an empty cell; write the rule, the code (or "${NOT_BUILT}") and the tests (or "${NO_TESTS}")`,
      );
  }
  fail(problems);
});

test('every path in the code column exists', () => {
  const problems: string[] = [];
  for (const row of rows) {
    const cell = codeCell(row);
    const paths = backticked(cell);
    if (paths.length === 0 && !cell.startsWith(NOT_BUILT))
      problems.push(`${where(row)}: code column names no file in backticks and does not say "${NOT_BUILT}"`);
    for (const p of paths) {
      if (!existsSync(join(ROOT, p)))
        problems.push(`${where(row)}: code path \`${p}\` does not exist: fix or remove it`);
    }
  }
  fail(problems);
});

test('every behaviour a test title names is in the map, and its row lists that test file', () => {
  const problems: string[] = [];
  for (const [id, files] of [...namedByTests()].sort(([a], [b]) => a.localeCompare(b))) {
    for (const file of [...files].sort()) {
      const row = rows.find((r) => r.id === id);
      if (!catalogue.includes(id))
        problems.push(
          `${file}: a test title names ${id}, which is not in the catalogue: fix the title, or add ${id} to CATALOGUE and a row to the map`,
        );
      else if (!row) problems.push(`${file}: a test title names ${id}, which has no row: add one listing \`${file}\``);
      else if (!backticked(testsCell(row)).includes(file))
        problems.push(`${where(row)}: add \`${file}\` to the tests column (a test title there names ${id})`);
    }
  }
  fail(problems);
});

test('every test file a row lists names that behaviour in one of its test titles', () => {
  const named = namedByTests();
  const problems: string[] = [];
  for (const row of rows) {
    const cell = testsCell(row);
    const files = backticked(cell);
    if (files.length === 0 && cell !== NO_TESTS)
      problems.push(`${where(row)}: tests column names no test file in backticks and does not say "${NO_TESTS}"`);
    for (const file of files) {
      if (!/^test\/.+\.test\.ts$/.test(file) || !existsSync(join(ROOT, file)))
        problems.push(`${where(row)}: \`${file}\` is not a test file under test/: fix or remove it`);
      else if (!named.get(row.id)?.has(file))
        problems.push(
          `${where(row)}: no test title in \`${file}\` names ${row.id}: remove it from the row, or name ${row.id} in the title of the test that proves it`,
        );
    }
  }
  fail(problems);
});

test('the title parser finds IDs in quoted, double-quoted and back-quoted titles only', () => {
  // Built from a variable so this file's own scan does not read these lines as titles.
  const t = 'test';
  const source = [
    `${t}('ALPHA COND-1 and OBS-2', () => {});`,
    `${t}("KROP-4 double", () => {});`,
    `${t}.skip(\`VAL-3 \${x}\`, () => {});`,
    `// ${t}('COND-4 commented out', () => {});`,
    `/COND-5/.${t}('COND-5 not a title');`,
    `assert.equal(1, 1, 'PLAN-1 not a title');`,
    `${t}('UTF-8 is not an ID', () => {});`,
  ].join('\n');
  assert.deepEqual(titlesOf(source).flatMap(idsIn), ['COND-1', 'OBS-2', 'KROP-4', 'VAL-3']);
});

// Writes the generated tables of the docs: the reasons of docs/troubleshooting.md from
// shared/status/reasonGuide.ts, and the condition owners of docs/conditions.md from the step table.
import { readFileSync, writeFileSync } from 'node:fs';
import { reasonTable, tableIn } from '../shared/status/reasonTable.ts';
import { ownerTable, ownerTableIn } from '../shared/steps/ownerTable.ts';

type Locate = (doc: string) => { start: number; end: number } | undefined;

function replaceTable(file: string, locate: Locate, table: string): void {
  const path = new URL(`../${file}`, import.meta.url);
  const doc = readFileSync(path, 'utf8');
  const at = locate(doc);
  if (!at) throw new Error(`${file} has no table header to replace`);
  const lines = doc.split('\n');
  lines.splice(at.start, at.end - at.start, ...table.split('\n'));
  writeFileSync(path, lines.join('\n'));
  console.log(`${file}: ${at.end - at.start - 2} rows replaced`);
}

replaceTable('docs/troubleshooting.md', tableIn, reasonTable());
replaceTable('docs/conditions.md', ownerTableIn, ownerTable());

// Writes the reasons table of docs/troubleshooting.md from shared/status/reasonGuide.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { reasonTable, tableIn } from '../shared/status/reasonTable.ts';

const path = new URL('../docs/troubleshooting.md', import.meta.url);
const doc = readFileSync(path, 'utf8');
const at = tableIn(doc);
if (!at) throw new Error('docs/troubleshooting.md has no reasons table header to replace');
const lines = doc.split('\n');
lines.splice(at.start, at.end - at.start, ...reasonTable().split('\n'));
writeFileSync(path, lines.join('\n'));
console.log(`docs/troubleshooting.md: ${at.end - at.start - 2} reason rows replaced`);

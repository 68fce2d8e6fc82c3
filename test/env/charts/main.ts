// TEST FIXTURES: makes the fixture charts and the AICR `--data` overlay from AICR's recipe data
// (see harness/fixtureCharts.ts), then serves the charts on loopback (chartRepo.ts). up.sh starts it and
// records its PID; down.sh stops it. The overlay is written before the port listens, so once
// index.yaml answers, every aicr run in a Job sees the fixture repository.
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { knobPaths } from '../knobFiles.ts';
import { chartRepo } from './chartRepo.ts';
import {
  type IndexEntry,
  archiveName,
  chartsNamed,
  crdsByChart,
  indexEntry,
  packageFixture,
  pointAt,
} from '../../../harness/fixtureCharts.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, recipes: { type: 'string' }, state: { type: 'string' } },
});
if (!values.port || !values.recipes || !values.state) {
  console.error(
    'usage: main.ts --port <port> --recipes <AICR recipes dir: registry.yaml, overlays/> --state <state dir>',
  );
  process.exit(2);
}
const { port, recipes, state } = values;
const url = `http://127.0.0.1:${port}`;
const knobs = knobPaths(state);

const registryText = await readFile(join(recipes, 'registry.yaml'), 'utf8');
const overlayNames = (await readdir(join(recipes, 'overlays'))).filter((n) => n.endsWith('.yaml')).sort();
const overlays = await Promise.all(
  overlayNames.map(async (n) => ({ name: n, text: await readFile(join(recipes, 'overlays', n), 'utf8') })),
);

// Written beside, then renamed: an aicr run never meets half an overlay.
const partial = `${knobs.aicrData}.partial`;
await mkdir(join(partial, 'overlays'), { recursive: true });
await writeFile(join(partial, 'registry.yaml'), pointAt(registryText, url));
for (const o of overlays)
  if (pointAt(o.text, url) !== o.text) await writeFile(join(partial, 'overlays', o.name), pointAt(o.text, url));
await rename(partial, knobs.aicrData);

// AICR's component manifests, as far as up.sh unpacked them (recipes/components/*/manifests/).
const manifestTexts = new Map<string, string>();
const componentsDir = join(recipes, 'components');
for (const component of await readdir(componentsDir).catch(() => [] as string[])) {
  const dir = join(componentsDir, component, 'manifests');
  for (const file of await readdir(dir).catch(() => [] as string[]))
    manifestTexts.set(`components/${component}/manifests/${file}`, await readFile(join(dir, file), 'utf8'));
}
const crds = crdsByChart(
  registryText,
  overlays.map((o) => o.text),
  (path) => manifestTexts.get(path),
);

const archives = new Map<string, Uint8Array>();
const entries: IndexEntry[] = [];
for (const c of chartsNamed(
  registryText,
  overlays.map((o) => o.text),
)) {
  const archive = packageFixture(c, { crds: crds.get(c.chart) ?? [] });
  archives.set(archiveName(c), archive);
  entries.push(indexEntry(c, archive));
}
await mkdir(knobs.chartRepo, { recursive: true });
const server = chartRepo({ entries, archives, knobs });
server.listen(Number(port), '127.0.0.1', () => {
  console.error(
    `[chart-repo] STAND-IN for upstream Helm chart repositories: ${entries.length} fixture charts at ${url}; AICR --data overlay at ${knobs.aicrData}`,
  );
});
const stop = (): void => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

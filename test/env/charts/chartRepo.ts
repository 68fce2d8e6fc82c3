// STAND-IN: a loopback classic Helm chart repository (index.yaml and .tgz archives) serving the
// fixture charts, in place of the upstream repositories AICR's recipes name, which cannot be
// reached here. Its knobs (../knobFiles.ts), read on each request, make it lack a chart
// version or drop every connection, as a real repository can.
import { type Server, createServer } from 'node:http';
import { type KnobPaths, readChartRepoKnobs } from '../knobFiles.ts';
import { type IndexEntry, archiveName, indexYaml } from '../../../harness/fixtureCharts.ts';

export interface ChartRepoOptions {
  readonly entries: readonly IndexEntry[];
  readonly archives: ReadonlyMap<string, Uint8Array>;
  readonly knobs: KnobPaths;
}

export function chartRepo(opts: ChartRepoOptions): Server {
  return createServer((req, res) => {
    void readChartRepoKnobs(opts.knobs).then((knobs) => {
      if (knobs.some((k) => k.kind === 'outage')) return void req.socket.destroy();
      const hidden = new Set(knobs.flatMap((k) => (k.kind === 'hide' ? [archiveName(k)] : [])));
      const entries = opts.entries.filter((e) => !hidden.has(archiveName(e)));
      const path = new URL(req.url ?? '/', 'http://repo').pathname.replace(/^\/+/, '');
      if (path === 'index.yaml')
        return void res.writeHead(200, { 'content-type': 'application/x-yaml' }).end(indexYaml(entries));
      const archive = hidden.has(path) ? undefined : opts.archives.get(path);
      if (archive === undefined)
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end(`no such chart archive: ${path}\n`);
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length }).end(archive);
    });
  });
}

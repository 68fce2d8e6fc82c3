// Bundles the kubectl aicr plugin (cli/) into plugin/kubectl-aicr.mjs: one file that runs on
// Node 20+ alone, without this repository or its packages, so it can be installed anywhere
// kubectl runs. `npm pack` in plugin/ runs this first; the bundle is never checked in.
import { chmodSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const outfile = join(root, 'plugin/kubectl-aicr.mjs');

await build({
  entryPoints: [join(root, 'cli/kubectl-aicr.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  // The bundled CommonJS packages call require for Node's own modules, which ESM lacks.
  banner: {
    js:
      '#!/usr/bin/env node\n' +
      "import { createRequire as __aicrRequire } from 'node:module';\n" +
      'const require = __aicrRequire(import.meta.url);',
  },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
console.log(`wrote ${relative(process.cwd(), outfile)}`);

// Where each function's bundle weight comes from: esbuild's metafile, with the options
// serverless.yml gives serverless-esbuild, summed by package (our own code by top folder).
import { build } from 'esbuild';

export interface Weight {
  readonly function: string;
  readonly bytes: number;
  /** The heaviest contributors, largest first. */
  readonly top: readonly { readonly from: string; readonly bytes: number }[];
}

function ownerOf(file: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  return pkg?.[1] ?? file.split('/').slice(0, 2).join('/');
}

export async function bundleWeight(fn: string, top = 12): Promise<Weight> {
  const result = await build({
    entryPoints: [new URL(`../functions/${fn}.ts`, import.meta.url).pathname],
    bundle: true,
    minify: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    // As serverless.yml's custom.esbuild.exclude: browser-only, never loaded in Node.
    external: ['bowser'],
    metafile: true,
    write: false,
    outfile: `${fn}.mjs`,
    logLevel: 'error',
  });
  const output = Object.values(result.metafile.outputs)[0];
  const by = new Map<string, number>();
  for (const [file, input] of Object.entries(output?.inputs ?? {}))
    by.set(ownerOf(file), (by.get(ownerOf(file)) ?? 0) + input.bytesInOutput);
  const sorted = [...by.entries()].sort((a, b) => b[1] - a[1]);
  return {
    function: fn,
    bytes: output?.bytes ?? 0,
    top: sorted.slice(0, top).map(([from, bytes]) => ({ from, bytes })),
  };
}
